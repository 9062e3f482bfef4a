import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { gate, loseCreateAnswer, runClaimRace } from '../helpers/claim-race';
import { createDevServerEnv, uniqueName } from '../helpers/temporal-env';

/**
 * Two same-shape pipelines whose create answers are both lost. P1's retry lists only its own model
 * M1; P2 creates M2, lists [M1, M2] and adopts M1 (the oldest) before P1 reads the claims. P1 must
 * then adopt M2, the model P2 left behind: a create of its own would leave M2 owned by nobody.
 *
 * On the dev server, in real time (about a minute: the settle waits and a heartbeat timeout run
 * their course). The gates hold activities in real time, and under time skipping a busy machine
 * let the test server jump to the next deadline it knew while a workflow task waited for the
 * worker: ten years ahead, the run's default execution timeout.
 */
describe('the model-claim race, order forced', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator | undefined;

  beforeAll(async () => {
    env = await createDevServerEnv();
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  test('two pipelines end with two models and no model unowned', async () => {
    sim = await startSimulator({ progression: { mode: 'calls' } });
    const p1 = uniqueName('p1');
    const p2 = uniqueName('p2');
    const p1Listed = gate();
    const p2Claimed = gate();
    const created = new Set<string>();

    const outcome = await runClaimRace(
      env,
      sim,
      async ({ activityType, attempt, pipeline }, next) => {
        // Each pipeline's first create is made and its answer lost.
        if (activityType === 'createModel' && attempt === 1 && !created.has(pipeline)) {
          created.add(pipeline);
          return loseCreateAnswer(next);
        }
        if (pipeline === p1 && activityType === 'findUnclaimed') {
          // P1's list (its create's retry) holds M1 only; P2 now creates, lists and claims. Every
          // attempt waits: P2's settling retry outlasts the heartbeat timeout of the first, and its
          // retry must not read the claims early either.
          p1Listed.open();
          await p2Claimed.opened;
        }
        // P2 looks for selfies in a model only once its claim on it was granted.
        if (pipeline === p2 && activityType === 'countTrainingImages') p2Claimed.open();
        return next();
      },
      (launch) => {
        const first = launch({ workflowId: p1 });
        return Promise.all([first, p1Listed.opened.then(() => launch({ workflowId: p2 }))]);
      },
    );

    expect(outcome.obtained.get(p2)).toBe(outcome.models[0]);
    expect({ models: outcome.models.length, unowned: outcome.unowned }).toEqual({ models: 2, unowned: [] });
    expect(new Set(outcome.obtained.values()).size).toBe(2);
  }, 120_000);
});

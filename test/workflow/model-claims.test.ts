import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { claimWorkflowId } from '@avatar-pipeline/client/contracts/workflow-ids';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { providerScope } from '../../src/worker/provider-scope';
import { createTestWorker, SkippedClock } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { createTimeSkippingEnv, uniqueName } from '../helpers/temporal-env';

const MINUTE = 60_000;
/** Other pipelines' models, created and claimed while this pipeline's create answer was lost. */
const CLAIMED_BY_OTHERS = 40;
/**
 * The pipeline's history up to its first upload: the create (and its lost answer's retry), one
 * read of the candidates' claims, the claim of its own model and the look for selfies in it, with
 * their workflow tasks. One refused claim per candidate would cost about 11 events each.
 */
const MOST_EVENTS_TO_OBTAIN_A_MODEL = 50;

/**
 * Under load most CREATED models of the account are other pipelines' models, claimed and awaiting
 * their selfies. A pipeline whose create answer was lost must adopt its model without trying a
 * claim on each of theirs.
 */
describe('obtaining a model among many claimed by other pipelines', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator | undefined;

  beforeEach(async () => {
    env = await createTimeSkippingEnv();
  });
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
    await env?.teardown();
  });

  test('a pipeline whose create answer was lost adopts its own model with one read of the claims', async () => {
    const clock = new SkippedClock(env);
    await clock.sync();
    const provider = await startSimulator({
      progression: { mode: 'wall', trainingMs: 10 * MINUTE, generationMs: 2 * MINUTE },
      clock: clock.now,
      // The pipeline's create is made and its answer lost.
      loseResponseRate: 1,
      faultEndpoints: ['createModel'],
    });
    sim = provider;
    const selfies = await writeSelfies(3);
    const taskQueue = uniqueName('claims');
    const request = { styles: [3], gender: 1 as const };

    /** Before the create's retry looks for what it left behind, other pipelines create and claim theirs. */
    const othersCreateAndClaim = async () => {
      provider.setOptions({ loseResponseRate: 0 });
      const setup = new ProviderClient({ baseUrl: provider.url, apiKey: 'sim-key', timeoutMs: 30_000 });
      // Started, not awaited: a claim holds its id from its start.
      for (let i = 0; i < CLAIMED_BY_OTHERS; i++) {
        const model = await setup.createModel(request);
        await env.client.workflow.start(WORKFLOW_TYPES.claim, {
          taskQueue,
          workflowId: claimWorkflowId(providerScope(provider.url), model.id),
          args: [`another-pipeline-${i}`],
        });
      }
    };
    const interceptor: ActivityInboundCallsInterceptor = {
      async execute(input, next) {
        const { activityType, attempt } = Context.current().info;
        if (activityType === 'createModel' && attempt === 2) await othersCreateAndClaim();
        return next(input);
      },
    };

    const worker = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: provider.url,
      imageRoots: [selfies.dir],
      interceptors: { activity: [...(clock.interceptors.activity ?? []), () => ({ inbound: interceptor })] },
    });
    const { result, history } = await worker.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: selfies.files, ...request },
        placementFrom({ taskQueue }),
      );
      const result = await pipeline.result();
      return { result, history: await env.client.workflow.getHandle(pipeline.workflowId).fetchHistory() };
    });

    expect(result.status).toBe('DONE');
    const stats = provider.stats();
    // Its own model is the first one created, the one whose answer was lost: adopted, not duplicated.
    const models = stats.orders.filter((o) => o.kind === 'model');
    expect(models).toHaveLength(CLAIMED_BY_OTHERS + 1);
    expect(result.modelId).toBe(Math.min(...models.map((m) => m.id)));

    const events = history.events ?? [];
    const firstUpload = events.findIndex(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'uploadSelfie',
    );
    const toObtain = events.slice(0, firstUpload);
    const claimStarts = toObtain.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length;
    process.stderr.write(
      `obtaining the model among ${CLAIMED_BY_OTHERS} claimed by others: ${toObtain.length} events, ${claimStarts} claim starts\n`,
    );
    expect(firstUpload).toBeGreaterThan(0);
    expect(claimStarts).toBe(1);
    expect(toObtain.length).toBeLessThanOrEqual(MOST_EVENTS_TO_OBTAIN_A_MODEL);
  });
});

import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { createClaimActivities } from '../../activities/claim-activities';
import { createProviderActivities } from '../../activities/provider-activities';
import { withActivityFailures } from '../../activities/provider-failure';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { claimWorkflowId } from '@avatar-pipeline/client/contracts/workflow-ids';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { RunningSimulator } from '../../src/simulator';
import { obtainModelWorkflow } from '../stand-in-workflows/model-claim-workflows';

/** The shape every pipeline of a race asks for: one shape, so all of them compete for the same models. */
export const RACE_SHAPE = { styles: [3], gender: 1 as const };

/** What a test does around each activity of a race: `next` runs it; `pipeline` is the workflow id. */
export type RaceHook = (
  call: { activityType: string; attempt: number; pipeline: string },
  next: () => Promise<unknown>,
) => Promise<unknown>;

export interface RacePipeline {
  workflowId: string;
  startAfterMs?: number;
}

export interface RaceOutcome {
  /** The model each pipeline obtained, by workflow id. */
  obtained: Map<string, number>;
  /** Every model of the race's shape at the provider. */
  models: number[];
  /** Models no claim workflow holds: made and owned by nobody. */
  unowned: number[];
}

/**
 * Runs obtainModelWorkflow for each pipeline against `sim`, on one worker whose activities pass
 * through `hook`, and reports which models are owned. `start` decides when each pipeline starts.
 */
export async function runClaimRace(
  env: TestWorkflowEnvironment,
  sim: RunningSimulator,
  hook: RaceHook,
  start: (launch: (pipeline: RacePipeline) => Promise<number>) => Promise<number[]>,
): Promise<RaceOutcome> {
  const taskQueue = `claim-race-${randomUUID()}`;
  const scope = `claim-race-${randomUUID()}`;
  const interceptor: ActivityInboundCallsInterceptor = {
    execute(input, next) {
      const info = Context.current().info;
      return hook(
        {
          activityType: info.activityType,
          attempt: info.attempt,
          pipeline: info.workflowExecution?.workflowId ?? '',
        },
        () => next(input),
      ) as ReturnType<typeof next>;
    },
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace,
    taskQueue,
    workflowsPath: require.resolve('../stand-in-workflows/model-claim-workflows'),
    interceptors: withActivityFailures({ activity: [() => ({ inbound: interceptor })] }),
    activities: {
      ...createProviderActivities({
        provider: new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 }),
        imageAccess: { roots: [], urlHosts: [] },
        providerScope: scope,
        // The simulator's lost answers are writes already made: nothing is left to settle.
        writeSettleMs: 0,
      }),
      ...createClaimActivities({ describe: (id) => env.client.workflow.getHandle(id).describe() }),
    },
  });
  const obtained = new Map<string, number>();
  await worker.runUntil(
    start(async ({ workflowId, startAfterMs }) => {
      const modelId = await env.client.workflow.execute(obtainModelWorkflow, {
        taskQueue,
        workflowId,
        args: [{ ...RACE_SHAPE, taskQueue, ...(startAfterMs ? { startAfterMs } : {}) }],
      });
      obtained.set(workflowId, modelId);
      return modelId;
    }),
  );
  const models = sim
    .stats()
    .orders.filter((o) => o.kind === 'model')
    .map((o) => o.id)
    .sort((a, b) => a - b);
  const unowned: number[] = [];
  for (const modelId of models) {
    const held = await env.client.workflow
      .getHandle(claimWorkflowId(scope, modelId))
      .describe()
      .then((d) => d.type === WORKFLOW_TYPES.claim)
      .catch(() => false);
    if (!held) unowned.push(modelId);
  }
  return { obtained, models, unowned };
}

/**
 * Runs a createModel attempt and, when it made a model, loses its answer, as a provider whose
 * response never arrived: the model exists, the attempt fails and is retried.
 */
export async function loseCreateAnswer(next: () => Promise<unknown>): Promise<unknown> {
  const result = await next();
  if ((result as { created?: unknown }).created) throw new Error('the create answer was lost (test)');
  return result;
}

/** A promise with its resolve, for forcing one order of events between pipelines. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

import { ActivityFailure, ApplicationFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { GenerationWorkflowInput } from '@avatar-pipeline/client/contracts/model-runs';
import type { ExpectedDuration, FinishedOrder } from '../src/contracts/order-durations';
import { generationKind } from '../src/contracts/order-kinds';
import type { GenerationResult, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { AvatarPageOrigin } from '../src/avatar-pages/avatar-page-origin';
import { writes } from './activity-proxies';
import { failureOutcome, outcomeOfResult, reportToCampaign } from '../src/campaign/workflows/report';
import { GenerationWatch } from './generation-watch';
import { learnDurations } from './order-durations';
import type { FinishBounds } from './polling';
import { PipelineTracker, styleAvatarsOf } from './pipeline-tracker';
import { RunWebhooks } from './run-webhooks';
import { collectStyle, type CollectSettings } from './style-avatars';
import { archiveSlots } from './archive-avatars';

/** What generating needs besides the model and the styles. */
export type GenerationSettings = Pick<
  GenerationWorkflowInput,
  | 'gender'
  | 'generationDeadlineMs'
  | 'polling'
  | 'providerTaskQueue'
  | 'archiveAvatars'
  | 'subjectId'
  | 'tenant'
>;

/**
 * The generation half of every pipeline: every style in parallel. Each style's order is created
 * and run, the orders are polled together (one GenerationWatch per model: one request a round for
 * all of them), and each DONE order's avatars are collected and archived (workflows/style-avatars.ts),
 * all in this workflow; the styles share what their page walks learn of the provider. A style
 * that fails is reported in its entry; only cancellation propagates.
 */
export async function generateStyles(
  modelId: number,
  styles: number[],
  settings: GenerationSettings,
  tracker: PipelineTracker,
  webhooks: RunWebhooks,
  /** Orders the run finished before (its training), recorded with the same durations call. */
  finishedBefore: FinishedOrder[] = [],
): Promise<GenerationResult[]> {
  tracker.stage('generating');
  const route = { taskQueue: settings.providerTaskQueue };
  const watch = new GenerationWatch(modelId, settings.polling, route);
  const collect: CollectSettings = {
    route,
    origin: new AvatarPageOrigin(),
    ...(settings.archiveAvatars
      ? {
          archive: {
            owner: {
              tenant: settings.tenant,
              ...(settings.subjectId !== undefined ? { subjectId: settings.subjectId } : {}),
              pipelineId: workflowInfo().workflowId,
            },
            slots: archiveSlots(),
          },
        }
      : {}),
  };
  // Orders of one style take alike: their finished runs time this one's reads.
  const expected = await learnDurations(finishedBefore, styles.map(generationKind));
  const finished: FinishedOrder[] = [];
  const generations = await Promise.all(
    styles.map(async (styleId) => {
      const timing = { expected: expected.get(generationKind(styleId)), finished };
      const generation = await generateStyle(modelId, styleId, settings, tracker, watch, collect, timing);
      // Each style is announced as it ends, minutes before the run's end for a slower style.
      await webhooks.styleEnded(modelId, generation);
      return generation;
    }),
  );
  await learnDurations(finished, []);
  return generations;
}

/** A style's expected finish, and where its order's observed finish goes. */
interface StyleTiming {
  expected: ExpectedDuration | undefined;
  finished: FinishedOrder[];
}

/**
 * The run's result from every style's entry; fails (NoStyleSucceeded, with the model and entries
 * as details so that a retry can pick them up) when none succeeded.
 */
export function generationOutcome(
  workflowId: string,
  subjectId: string | undefined,
  modelId: number,
  generations: GenerationResult[],
): PipelineResult {
  const succeeded = generations.filter((g) => g.status === 'DONE').length;
  if (succeeded === 0) {
    throw ApplicationFailure.nonRetryable(
      `No style succeeded for model ${modelId}: ${generations.map((g) => `style ${g.styleId}: ${g.error}`).join('; ')}`,
      'NoStyleSucceeded',
      { modelId, generations },
    );
  }
  return {
    workflowId,
    ...(subjectId ? { subjectId } : {}),
    modelId,
    status: succeeded === generations.length ? 'DONE' : 'PARTIAL',
    generations,
  };
}

/**
 * Generation under a model that is already DONE (`avatar-pipeline generate`, POST
 * /v1/models/{modelId}/generations, every retry, and a campaign's subject with a modelId, which
 * reports its end to the campaign as a pipeline does): no training. A retry keeps the styles the
 * retried run has DONE and lists them in its result beside the ones generated again.
 */
export async function avatarGeneration(input: GenerationWorkflowInput): Promise<PipelineResult> {
  const { workflowId } = workflowInfo();
  const kept = input.retry?.kept ?? [];
  const tracker = new PipelineTracker(workflowId, {
    ...(input.subjectId ? { subjectId: input.subjectId } : {}),
    ...(input.campaignId ? { campaignId: input.campaignId } : {}),
    imageCount: 0,
    styles: input.styles,
    stage: 'generating',
    kept,
  });
  const webhooks = new RunWebhooks(input);
  try {
    tracker.model(input.modelId);
    await webhooks.started(input.styles);
    const generated = await generateStyles(input.modelId, input.styles, input, tracker, webhooks);
    const result = generationOutcome(workflowId, input.subjectId, input.modelId, [...kept, ...generated]);
    tracker.stage('done');
    await webhooks.completed(result);
    await reportToCampaign(input.campaignId, outcomeOfResult(result));
    return result;
  } catch (err) {
    if (isCancellation(err)) tracker.cancelled();
    else tracker.failed(err instanceof Error ? err.message : String(err));
    await webhooks.ended(err);
    await reportToCampaign(input.campaignId, failureOutcome(err));
    throw err;
  }
}

async function generateStyle(
  modelId: number,
  styleId: number,
  settings: GenerationSettings,
  tracker: PipelineTracker,
  watch: GenerationWatch,
  collect: CollectSettings,
  timing: StyleTiming,
): Promise<GenerationResult> {
  const { route } = collect;
  let orderId: number | undefined;
  try {
    tracker.style({ styleId, stage: 'creating-order' });
    const created = await writes.createGenerationOrder.executeWithOptions(
      { summary: `create order for style ${styleId} under model ${modelId}`, ...route },
      [{ modelId, styleId, gender: settings.gender }],
    );
    const order = created.orderId;
    orderId = order;
    tracker.style({ styleId, stage: 'running', orderId: order });
    const started = await writes.runOrder.executeWithOptions(
      { summary: `run order ${order} (style ${styleId})`, ...route },
      [{ orderId: order }],
    );
    tracker.style({ styleId, stage: 'polling', orderId: order, providerStatus: started.status });
    let finish: FinishBounds | undefined;
    await watch.untilDone({
      ...(timing.expected ? { expected: timing.expected } : {}),
      onFinished: (bounds) => (finish = bounds),
      orderId: order,
      label: `generation of style ${styleId} (order ${order})`,
      deadlineMs: settings.generationDeadlineMs,
      known: started,
      onStatus: (s) =>
        tracker.style({
          styleId,
          stage: 'polling',
          orderId: order,
          providerStatus: s.status,
          ...(s.progress !== undefined ? { progress: s.progress } : {}),
        }),
    });
    if (finish) {
      timing.finished.push({
        kind: generationKind(styleId),
        orderId: order,
        seenDoneAt: Date.now(),
        ...finish,
      });
    }
    tracker.style({ styleId, stage: 'collecting', orderId: order, providerStatus: 'DONE', progress: 100 });
    const generated = await collectStyle({ modelId, styleId, orderId: order }, collect);
    tracker.style({
      styleId,
      stage: 'done',
      orderId: generated.orderId,
      providerStatus: 'DONE',
      progress: 100,
      avatarCount: generated.avatars.length,
      avatars: styleAvatarsOf(generated),
    });
    return generated;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const message = failureMessage(err);
    tracker.style({
      styleId,
      stage: 'failed',
      ...(orderId !== undefined ? { orderId } : {}),
      error: message,
    });
    return {
      styleId,
      ...(orderId !== undefined ? { orderId } : {}),
      status: 'ERROR',
      avatars: [],
      error: message,
    };
  }
}

/** The failure's own message, not the "Activity task failed" around it. */
function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

import { ActivityFailure, ApplicationFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { GenerationWorkflowInput } from '@avatar-pipeline/client/contracts/model-runs';
import type { ExpectedDuration, FinishedOrder } from '../src/contracts/order-durations';
import { generationKind } from '../src/contracts/order-kinds';
import type { GenerationResult, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { AvatarPageOrigin } from '../src/avatar-pages/avatar-page-origin';
import { writes } from './activity-proxies';
import { failureOutcome, outcomeOfResult, reportAwaitingReview, reportToCampaign } from './campaign/report';
import { GenerationWatch } from './generation-watch';
import { learnDurations } from './order-durations';
import type { FinishBounds } from './polling';
import { PipelineTracker, styleAvatarsOf } from './pipeline-tracker';
import { RunWebhooks } from './run-webhooks';
import { collectStyle, type CollectSettings } from './style-avatars';
import { archiveSlots } from './archive-avatars';
import { checkAvatars, failureReasons, faceOwnerOf } from './avatar-checks';
import { reviewGateOf, type ReviewGate } from './review-gate';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

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
  | 'checks'
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
  /** The run's review gate, when it asked for review: generated styles wait there for decisions. */
  gate?: ReviewGate,
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
  const generate = async (styleId: number, replacedOrders: number[] = []) => {
    const timing = { expected: expected.get(generationKind(styleId)), finished };
    const context = { tracker, watch, collect, timing };
    const generation = await generateStyle(modelId, styleId, settings, context, replacedOrders);
    // Each style is announced as it ends, minutes before the run's end for a slower style.
    await webhooks.styleEnded(modelId, generation);
    gate?.offer(generation);
    return generation;
  };
  const generations = await Promise.all(styles.map((styleId) => generate(styleId)));
  const reviewing = gate !== undefined && generations.some((g) => g.status === 'DONE');
  if (reviewing) await gate.review(generate);
  await learnDurations(finished, []);
  return reviewing ? gate.reviewed() : generations;
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
  /** The run's review gate: its outcome goes in the result, and a rejected style makes it PARTIAL. */
  gate?: ReviewGate,
): PipelineResult {
  const review = gate?.outcome();
  const succeeded = generations.filter((g) => g.status === 'DONE').length;
  if (succeeded === 0) {
    throw ApplicationFailure.nonRetryable(
      `No style succeeded for model ${modelId}: ${generations.map((g) => `style ${g.styleId}: ${g.error}`).join('; ')}`,
      FAILURE_TYPES.noStyleSucceeded,
      { modelId, generations },
    );
  }
  return {
    workflowId,
    ...(subjectId ? { subjectId } : {}),
    modelId,
    status: succeeded === generations.length && !review?.rejected.length ? 'DONE' : 'PARTIAL',
    generations,
    ...(review ? { review } : {}),
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
  const gate = reviewGateOf(input.review, input.styles, tracker, webhooks, () =>
    reportAwaitingReview(input.campaignId),
  );
  try {
    tracker.model(input.modelId);
    await webhooks.started(input.styles);
    const generated = await generateStyles(input.modelId, input.styles, input, tracker, webhooks, [], gate);
    const generations = [...kept, ...generated];
    const result = generationOutcome(workflowId, input.subjectId, input.modelId, generations, gate);
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

/**
 * One style: an order made, run, polled and collected; with avatar checks, its avatars checked and,
 * while any fails and the run's regenerations allow, the style ordered again. The entry holds the
 * last order's avatars, each with its check; a style none of whose avatars passed is an ERROR.
 */
async function generateStyle(
  modelId: number,
  styleId: number,
  settings: GenerationSettings,
  context: StyleContext,
  /** Orders of the style a reviewer replaced: never adopted as this one. */
  reviewReplaced: number[],
): Promise<GenerationResult> {
  const { tracker } = context;
  const avatarChecks = settings.checks?.avatars;
  const replaced: { orderId: number; failedAvatars: number }[] = [];
  const current: CurrentOrder = {};
  try {
    for (let attempt = 1; ; attempt += 1) {
      const numbered = avatarChecks ? { attempt } : {};
      const generated = await orderStyle(
        modelId,
        styleId,
        settings,
        context,
        { current, replaced: [...reviewReplaced, ...replaced.map((r) => r.orderId)] },
        numbered,
      );
      if (avatarChecks === undefined || settings.checks === undefined) {
        return styleDone(tracker, generated, numbered);
      }
      tracker.style({ styleId, ...numbered, stage: 'checking', orderId: generated.orderId });
      const avatars = await checkAvatars(
        generated.avatars,
        { modelId, styleId, orderId: generated.orderId },
        faceOwnerOf(settings),
        settings.checks.taskQueue,
      );
      const failed = avatars.filter((a) => a.check?.passed === false).length;
      if (failed > 0 && attempt <= avatarChecks.regenerations) {
        replaced.push({ orderId: generated.orderId, failedAvatars: failed });
        continue;
      }
      const checked: GenerationResult = {
        ...generated,
        avatars,
        attempts: attempt,
        ...(replaced.length > 0 ? { replacedOrders: replaced } : {}),
      };
      if (avatars.length > 0 && failed === avatars.length) {
        const error = `every avatar failed its checks after ${attempt} order${attempt > 1 ? 's' : ''}: ${failureReasons(avatars)}`;
        tracker.style({
          styleId,
          ...numbered,
          stage: 'failed',
          orderId: generated.orderId,
          error,
          avatars: styleAvatarsOf(checked),
        });
        return { ...checked, status: 'ERROR', error };
      }
      return styleDone(tracker, checked, numbered);
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    const message = failureMessage(err);
    const orderId = current.orderId;
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
      ...(replaced.length > 0 ? { attempts: replaced.length + 1, replacedOrders: replaced } : {}),
      error: message,
    };
  }
}

/** The style's order being made, once the provider has answered its create. */
interface CurrentOrder {
  orderId?: number;
}

/** What one order of a style is watched and collected with. */
interface StyleContext {
  tracker: PipelineTracker;
  watch: GenerationWatch;
  collect: CollectSettings;
  timing: StyleTiming;
}

function styleDone(
  tracker: PipelineTracker,
  generated: GenerationResult,
  numbered: { attempt?: number },
): GenerationResult {
  tracker.style({
    styleId: generated.styleId,
    ...numbered,
    stage: 'done',
    ...(generated.orderId !== undefined ? { orderId: generated.orderId } : {}),
    providerStatus: 'DONE',
    progress: 100,
    avatarCount: generated.avatars.length,
    avatars: styleAvatarsOf(generated),
  });
  return generated;
}

/** One generation order of a style: created (never adopting a known one), run, polled to DONE, collected. */
async function orderStyle(
  modelId: number,
  styleId: number,
  settings: GenerationSettings,
  { tracker, watch, collect, timing }: StyleContext,
  /** Where the order's id goes once known, and the style's earlier orders, never adopted as this one. */
  orders: { current: CurrentOrder; replaced: number[] },
  numbered: { attempt?: number },
): Promise<GenerationResult & { orderId: number }> {
  const { route } = collect;
  orders.current.orderId = undefined;
  tracker.style({ styleId, ...numbered, stage: 'creating-order' });
  const again =
    numbered.attempt !== undefined && numbered.attempt > 1 ? ` again (order ${numbered.attempt})` : '';
  const created = await writes.createGenerationOrder.executeWithOptions(
    { summary: `create order for style ${styleId} under model ${modelId}${again}`, ...route },
    [
      {
        modelId,
        styleId,
        gender: settings.gender,
        ...(orders.replaced.length > 0 ? { knownOrderIds: orders.replaced } : {}),
      },
    ],
  );
  const order = created.orderId;
  orders.current.orderId = order;
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
  return { ...generated, orderId: order };
}

/** The failure's own message, not the "Activity task failed" around it. */
function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

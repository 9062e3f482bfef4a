import { Context } from '@temporalio/activity';
import type { AvatarRef } from '@avatar-pipeline/client/contracts/pipeline-state';
import { readImage } from '../src/images/read-image';
import { imageProblem } from '@avatar-pipeline/client/images/image-structure';
import { InputError, listMessage, type InputIssue } from '@avatar-pipeline/client/errors';
import type { ImageAccessPolicy } from '../src/images/image-access';
import { AvatarPageStart } from '../src/avatar-pages/avatar-page-start';
import { readAvatarPage } from '../src/avatar-pages/collect-avatars';
import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import {
  ProviderBadRequestError,
  ProviderInvalidResponseError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
} from '@avatar-pipeline/client/provider/errors';
import type { Gender } from '@avatar-pipeline/client/provider/request-schemas';
import type { Avatar, Order } from '@avatar-pipeline/client/provider/schemas';
import { hasStarted, type OrderStatus } from '@avatar-pipeline/client/provider/status';
import { toUploadImage } from '@avatar-pipeline/client/provider/upload-image';
import {
  DEFAULT_PROVIDER_TIMEOUT_MS,
  DEFAULT_PROVIDER_WRITE_SETTLE_MS,
} from '@avatar-pipeline/client/config/env-schema';
import { claimWorkflowId } from '@avatar-pipeline/client/contracts/workflow-ids';
import { UPLOAD_HEARTBEAT_THROTTLE_MS } from '@avatar-pipeline/client/contracts/activity-timeouts';
import { sendWrite, SettlingRetryError, UnsettledWriteError, wasNeverSent } from './provider-failure';

export interface ActivityDependencies {
  provider: ProviderClient;
  imageAccess: ImageAccessPolicy;
  /** Identifies the provider account in claim ids, so two providers' order ids never collide. */
  providerScope: string;
  /** PROVIDER_WRITE_SETTLE_MS: how long a timed-out write may still be performed; its retry waits that long. */
  writeSettleMs?: number;
  /** PROVIDER_TIMEOUT_MS: how long a write sent just before its attempt ended may still be on its way. */
  providerTimeoutMs?: number;
  /** Where the provider's avatar pages start, as this worker learns from its reads; its own by default. */
  pageStart?: AvatarPageStart;
}

export interface ModelOffer {
  modelId: number;
  /** Workflow id whose creation claims this model for exactly one pipeline. */
  claimId: string;
}

export interface StatusReport {
  status: OrderStatus;
  progress?: number;
  message?: string;
}

/** One attempt of a write activity: whether it looks for an earlier attempt's write first, and how it sends its own. */
interface WriteAttempt {
  lookFirst: boolean;
  write<T>(send: () => Promise<T>): Promise<T>;
}

/**
 * Creates, uploads and runs are not idempotent at the provider. Every write follows one rule:
 * the first attempt writes; any later attempt (the earlier one may have committed and then lost
 * its answer, or its worker died) first looks at the provider's lists or status for the write it
 * may already have made, unless the attempt just before it left a WriteRefused mark. And it looks
 * only once that write has had time to land: an attempt whose write may still be on its way ends
 * asking for a retry no sooner than PROVIDER_WRITE_SETTLE_MS later (UnsettledWriteError), and an
 * attempt that follows one which ended without a mark (the server timed it out, its worker died)
 * sends nothing and asks for a retry after PROVIDER_TIMEOUT_MS plus PROVIDER_WRITE_SETTLE_MS
 * (SettlingRetryError).
 */
export function createProviderActivities({
  provider,
  imageAccess,
  providerScope,
  writeSettleMs = DEFAULT_PROVIDER_WRITE_SETTLE_MS,
  providerTimeoutMs = DEFAULT_PROVIDER_TIMEOUT_MS,
  pageStart = new AvatarPageStart(),
}: ActivityDependencies) {
  const call = () => ({ signal: Context.current().cancellationSignal });
  /**
   * Runs one attempt of a write activity under the rule above, leaving the mark its ending calls
   * for: WriteRefused when nothing was written, WriteSettled when whatever it or the attempts
   * before it wrote will have landed by the time its retry runs.
   */
  const writeAttempt = async <T>(body: (attempt: WriteAttempt) => Promise<T>): Promise<T> => {
    const context = Context.current();
    const { attempt } = context.info;
    const previous = attempt === 1 ? 'settled' : attemptEndIn(context.info.heartbeatDetails, attempt - 1);
    const leave = (mark: WriteRefused | WriteSettled) => context.heartbeat(mark);
    const settled: WriteSettled = { writeSettledInAttempt: attempt };
    if (previous === undefined) {
      leave(settled);
      throw new SettlingRetryError(attempt, providerTimeoutMs + writeSettleMs);
    }
    let sent = false;
    const write = async <R>(send: () => Promise<R>): Promise<R> => {
      sent = true;
      try {
        return await sendWrite(send, writeSettleMs);
      } catch (err) {
        if (isRefusal(err)) leave({ writeRefusedInAttempt: attempt });
        else if (err instanceof UnsettledWriteError || err instanceof ProviderInvalidResponseError) {
          leave(settled);
        }
        throw err;
      }
    };
    try {
      return await body({ lookFirst: attempt > 1 && previous === 'settled', write });
    } catch (err) {
      if (!sent) leave(settled);
      throw err;
    }
  };
  const claimIdFor = (modelId: number) => claimWorkflowId(providerScope, modelId);
  /** One page of an order's avatars, noted in what this worker knows of where pages start. */
  const readPage = async (orderId: number, page: number): Promise<AvatarRef[]> => {
    const avatars = await readAvatarPage(provider, orderId, page, call());
    pageStart.noteRead(orderId, page, avatars.length);
    return avatars.map(toAvatarRef);
  };

  return {
    /**
     * Returns the model just created or, when reconciling (a retry, or `reconcileFirst`), the
     * models a lost create may have left behind, for the workflow to claim one: one list request,
     * every model of this shape still CREATED that is not among `taken`, newest first. `taken` are
     * the models this pipeline has seen held by a claim; a claim is never released, so none of them
     * can become its own. The create is sent only when that list is empty: a list taken after every
     * claim the pipeline saw, which is what keeps a model from being left unowned (see
     * workflows/obtain-model.ts). The workflow checks the one it claims for images
     * (countTrainingImages), so one flaky answer never fails a whole list of reads.
     */
    async createModel(input: {
      styles: number[];
      gender: Gender;
      reconcileFirst?: boolean;
      taken?: number[];
    }): Promise<{ created?: ModelOffer; candidates: ModelOffer[] }> {
      return writeAttempt(async ({ lookFirst, write }) => {
        if (input.reconcileFirst || lookFirst) {
          const taken = new Set(input.taken);
          const candidates = (await findUnrunModels(provider, input.styles, input.gender, call())).filter(
            (modelId) => !taken.has(modelId),
          );
          if (candidates.length > 0) {
            return { candidates: candidates.map((modelId) => ({ modelId, claimId: claimIdFor(modelId) })) };
          }
        }
        const model = await write(() =>
          provider.createModel({ styles: input.styles, gender: input.gender }, call()),
        );
        return { created: { modelId: model.id, claimId: claimIdFor(model.id) }, candidates: [] };
      });
    },

    /**
     * Reads every selfie as its upload will and refuses the run (InvalidInput naming each bad
     * `images[N]`) when one is missing, outside the allowed roots or hosts, too large or not a whole
     * JPEG or PNG. It runs before the model is created, so a bad reference costs no provider write,
     * however the run was started. It makes no provider request.
     */
    async checkSelfies(input: { images: string[] }): Promise<void> {
      await withHeartbeats(async () => {
        const issues: InputIssue[] = [];
        for (const [index, image] of input.images.entries()) {
          const field = `images[${index}]`;
          try {
            const bytes = await readImage(image, imageAccess, { field, ...readerOf(Context.current()) });
            const problem = imageProblem(bytes);
            if (problem) issues.push({ path: field, message: problem });
          } catch (err) {
            if (!(err instanceof InputError)) throw err;
            issues.push(...err.issues);
          }
        }
        if (issues.length > 0) throw new InputError(issues, listMessage('Selfies refused', issues));
      });
    },

    /** How many training images a model holds: whether a claimed candidate is still unused. */
    async countTrainingImages(input: { modelId: number }): Promise<{ count: number }> {
      return {
        count: (await provider.listTrainingImages(input.modelId, call())).length,
      };
    },

    /**
     * Uploads are sequential per model, so an image the pipeline does not know yet is the one a lost
     * answer (or a worker that died mid-upload) left behind. Heartbeats let a dead worker's attempt
     * end after the heartbeat timeout instead of the start-to-close one; its retry waits for the
     * upload it may have cut off to land before looking.
     */
    async uploadSelfie(input: {
      modelId: number;
      gender: Gender;
      image: string;
      index: number;
      knownImageIds: number[];
    }): Promise<{ imageId: number; reconciled: boolean }> {
      return writeAttempt(({ lookFirst, write }) =>
        withHeartbeats(async () => {
          if (lookFirst) {
            const known = new Set(input.knownImageIds);
            const unknown = (await provider.listTrainingImages(input.modelId, call()))
              .map((image) => image.id)
              .filter((id) => !known.has(id))
              .sort((a, b) => a - b);
            if (unknown[0] !== undefined) return { imageId: unknown[0], reconciled: true };
          }
          const field = `images[${input.index}]`;
          const bytes = await readImage(input.image, imageAccess, { field, ...readerOf(Context.current()) });
          const uploaded = await write(() =>
            provider.uploadTrainingImage(
              input.modelId,
              { gender: input.gender, image: toUploadImage(bytes, { field }) },
              call(),
            ),
          );
          return { imageId: uploaded.id, reconciled: false };
        }),
      );
    },

    /** Selecting the same image twice is harmless, so no reconciliation is needed. */
    async selectMainImage(input: { modelId: number; imageId: number }): Promise<void> {
      await provider.selectTrainingImage(input.modelId, input.imageId, call());
    },

    async runOrder(input: { orderId: number }): Promise<StatusReport> {
      return writeAttempt(async ({ lookFirst, write }) => {
        if (lookFirst) {
          const current = await provider.getOrderStatus(input.orderId, call());
          if (hasStarted(current.status)) return report(current);
        }
        try {
          return report(await write(() => provider.runOrder(input.orderId, call())));
        } catch (err) {
          // A refused run of an order that is already running is the answer we lost, not a failure.
          if (!(err instanceof ProviderBadRequestError)) throw err;
          const current = await provider.getOrderStatus(input.orderId, call());
          if (hasStarted(current.status)) return report(current);
          throw err;
        }
      });
    },

    async getOrderStatus(input: { orderId: number }): Promise<StatusReport> {
      return report(await provider.getOrderStatus(input.orderId, call()));
    },

    /**
     * The status of every generation order under a model, in one request: how a pipeline polls
     * all its styles together instead of one status call per style.
     */
    async listModelOrderStatuses(input: {
      modelId: number;
    }): Promise<{ orders: { orderId: number; status: OrderStatus }[] }> {
      return {
        orders: (await provider.listModelOrders(input.modelId, call())).map((order) => ({
          orderId: order.id,
          status: order.status,
        })),
      };
    },

    /**
     * A generation order is found again by its parent, its style and its state: a create whose
     * answer was lost leaves an order that nothing has run yet (this run runs its order only once
     * the create answered). Orders of the style that were run are earlier runs' (a model is
     * generated for as often as wanted, by later runs too) and are never adopted.
     */
    async createGenerationOrder(input: {
      modelId: number;
      styleId: number;
      gender: Gender;
      /** Orders of this style the run made before (avatars that failed their checks): never adopted as this one. */
      knownOrderIds?: number[];
    }): Promise<{ orderId: number; reconciled: boolean }> {
      return writeAttempt(async ({ lookFirst, write }) => {
        if (lookFirst) {
          const known = new Set(input.knownOrderIds ?? []);
          const existing = (await provider.listModelOrders(input.modelId, call())).find(
            (order) =>
              isOrderForStyle(order, input.modelId, input.styleId) &&
              !hasStarted(order.status) &&
              !known.has(order.id),
          );
          if (existing) return { orderId: existing.id, reconciled: true };
        }
        const order = await write(() =>
          provider.createOrder(
            { styles: [input.styleId], gender: input.gender, parent: input.modelId },
            call(),
          ),
        );
        return { orderId: order.id, reconciled: false };
      });
    },

    /** One page of an order's avatars: a single provider request, so a rate limit on activities is one on requests. */
    async listAvatarPage(input: { orderId: number; page: number }): Promise<{ avatars: AvatarRef[] }> {
      return { avatars: await readPage(input.orderId, input.page) };
    },

    /**
     * The first page of an order's avatars where this worker has seen the provider's pages start
     * (page 0 until it has learnt otherwise), and which page that was: a run that has not learnt
     * the start yet begins its first walk here instead of paying a request for page 0.
     */
    async listFirstAvatarPage(input: { orderId: number }): Promise<{ page: number; avatars: AvatarRef[] }> {
      const page = pageStart.firstPage;
      return { page, avatars: await readPage(input.orderId, page) };
    },
  };
}

export type ProviderActivities = ReturnType<typeof createProviderActivities>;

/**
 * The heartbeat details of an attempt whose write the provider refused with a 429 (or which never
 * left this host: connection refused, host not found), after the attempt had looked for an earlier
 * attempt's write (or had no need to). A 429 is answered before the provider performs anything,
 * so nothing has been written yet, and the next attempt writes at once. Without the mark, a retry under a saturated quota sends its look and its write back to
 * back, as one task of the provider queue, whose rate limit lets one request through per task:
 * the look takes the quota's token, the write is refused again, and the activity can fail this
 * way for a minute while every other task passes. The mark holds for the next attempt only: a
 * later one cannot tell whether the attempts in between wrote (a worker that died mid-write
 * leaves no mark), and looks. A mark that never reaches the server costs a look, nothing more.
 */
export interface WriteRefused {
  writeRefusedInAttempt: number;
}

/**
 * The heartbeat details of an attempt that leaves its retry nothing to wait for: it sent nothing
 * (after the attempts before it had settled), its write was answered, or its failure asks for a
 * retry no sooner than the provider may still perform its write. The next attempt looks at once.
 */
export interface WriteSettled {
  writeSettledInAttempt: number;
}

/** How `attempt` ended by its mark; undefined when it left none (timed out by the server, worker gone). */
function attemptEndIn(details: unknown, attempt: number): 'refused' | 'settled' | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const mark = details as Partial<WriteRefused & WriteSettled>;
  if (mark.writeRefusedInAttempt === attempt) return 'refused';
  if (mark.writeSettledInAttempt === attempt) return 'settled';
  return undefined;
}

/** A write the provider refused before performing it (429), or one that never left this host. */
function isRefusal(err: unknown): boolean {
  return (
    err instanceof ProviderRateLimitedError || (err instanceof ProviderUnavailableError && wasNeverSent(err))
  );
}

function toAvatarRef(a: Avatar): AvatarRef {
  return {
    avatarId: a.avatar_id,
    imageUrl: a.image_url,
    ...(a.filename_small ? { thumbnailUrl: a.filename_small } : {}),
  };
}

function report(status: { status: OrderStatus; progress?: number; message?: string }): StatusReport {
  return {
    status: status.status,
    ...(status.progress !== undefined ? { progress: status.progress } : {}),
    ...(status.message !== undefined ? { message: status.message } : {}),
  };
}

function isOrderForStyle(order: Order, modelId: number, styleId: number): boolean {
  const parentMatches = order.parent === undefined || order.parent === modelId;
  return parentMatches && order.styles?.length === 1 && order.styles[0] === styleId;
}

function sameStyles(a: number[] | undefined, b: number[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  const sorted = [...a].sort((x, y) => x - y);
  return [...b].sort((x, y) => x - y).every((id, i) => id === sorted[i]);
}

/** Models of this shape that are still CREATED (never run), newest first: a lost create's model is likely among the newest. */
async function findUnrunModels(
  provider: ProviderClient,
  styles: number[],
  gender: Gender,
  call: { signal: AbortSignal },
): Promise<number[]> {
  return (await provider.listModels(call))
    .filter(
      (m) =>
        (m.parent ?? 0) === 0 &&
        m.status === 'CREATED' &&
        m.gender === gender &&
        sameStyles(m.styles, styles),
    )
    .map((m) => m.id)
    .sort((a, b) => b - a);
}

/** Comfortably inside the heartbeat timeout of the upload activity (workflows/activity-proxies.ts). */
const HEARTBEAT_EVERY_MS = UPLOAD_HEARTBEAT_THROTTLE_MS;

/**
 * Heartbeats while `body` runs, so that when the worker dies (killed, out of memory, host lost) the
 * server retries the attempt after the short heartbeat timeout instead of waiting out the long
 * start-to-close timeout that a slow upload needs. The retry lets a cut-off upload land, then
 * reconciles before writing again.
 */
async function withHeartbeats<T>(body: () => Promise<T>): Promise<T> {
  const context = Context.current();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await body();
  } finally {
    clearInterval(timer);
  }
}

/** What a selfie read needs of its activity: its cancellation, and the run whose uploads it may read. */
function readerOf(context: Context): { signal: AbortSignal; uploadsOf: string } {
  const run = context.info.workflowExecution;
  if (run === undefined) throw new Error('Selfies are read only for a workflow run, whose uploads they are');
  return { signal: context.cancellationSignal, uploadsOf: run.workflowId };
}

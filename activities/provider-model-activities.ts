import { Context } from '@temporalio/activity';
import { readImage } from '../src/images/read-image';
import { imageProblem } from '@avatar-pipeline/client/images/image-structure';
import { InputError, listMessage, type InputIssue } from '@avatar-pipeline/client/errors';
import type { ImageAccessPolicy } from '../src/images/image-access';
import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { Gender } from '@avatar-pipeline/client/provider/request-schemas';
import { toUploadImage } from '@avatar-pipeline/client/provider/upload-image';
import { claimWorkflowId } from '@avatar-pipeline/client/contracts/workflow-ids';
import { UPLOAD_HEARTBEAT_THROTTLE_MS } from '@avatar-pipeline/client/contracts/activity-timeouts';
import type { ModelOffer } from '../src/contracts/provider-activity-results';
import { call } from './provider-call';
import type { RunWriteAttempt } from './provider-write-attempt';
import type { MeterOrder } from './order-meter';

export interface ModelActivityDependencies {
  provider: ProviderClient;
  imageAccess: ImageAccessPolicy;
  /** Identifies the provider account in claim ids (ActivityDependencies). */
  providerScope: string;
  writeAttempt: RunWriteAttempt;
  meterOrder: MeterOrder;
}

/**
 * The provider activities of a model and its training: the model's creation (or the one a lost
 * create left), the selfies' check, upload and main image. Part of createProviderActivities.
 */
export function createModelActivities({
  provider,
  imageAccess,
  providerScope,
  writeAttempt,
  meterOrder,
}: ModelActivityDependencies) {
  const claimIdFor = (modelId: number) => claimWorkflowId(providerScope, modelId);

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

    /**
     * Selecting the same image twice is harmless, so no reconciliation is needed. The training is
     * metered here: only the run that owns a model selects its main image, once its claim is won,
     * right before it runs the training.
     */
    async selectMainImage(input: { modelId: number; imageId: number }): Promise<void> {
      await provider.selectTrainingImage(input.modelId, input.imageId, call());
      await meterOrder('training', `model:${input.modelId}`);
    },
  };
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
  options: { signal: AbortSignal },
): Promise<number[]> {
  return (await provider.listModels(options))
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

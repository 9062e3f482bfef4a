import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { PipelineRequest } from '../contracts/pipeline-input';
import { DEFAULT_TENANT } from '../contracts/workflow-ids';
import { InputError, type InputIssue } from '../errors';
import { checkSelfieFiles } from '../images/selfie-file-check';
import { imageProblem } from '../images/image-structure';
import { detectImageFormat } from '../provider/image-format';
import { DEFAULT_MAX_IMAGE_BYTES } from '../provider/upload-image';
import type { BlobStore } from '../storage/blob-store';
import { UploadBatch, type SelfieBytes } from '../storage/upload-batch';
import {
  getPipeline,
  pipelineWorkflowId,
  startPipelineRun,
  validatePipelineRequest,
  type PipelineHandle,
  type StartPipelineOptions,
} from './pipelines';
import { refuseOutOfBoundsPolling } from './polling-bounds-check';
import { NamespaceNotSetUpError, runExists } from './start-run';

/** A selfie as an app hands it to `start`: a path, URL or stored reference, or the image's bytes. */
export type SelfieInput = string | Uint8Array;

/**
 * Where selfies handed over as bytes are stored for the workers: the blob store they read
 * (STORAGE_URL). `openSelfieStore` of `@avatar-pipeline/client/selfie-store` opens it.
 */
export type SelfieStore = Pick<BlobStore, 'put' | 'delete'> & {
  /** The run deletes its stored selfies once its model is trained (SELFIE_RETENTION=after-training). */
  deleteUploadsAfterTraining?: boolean;
};

/** A pipeline request whose selfies may be bytes. */
export type PipelineStartRequest = Omit<PipelineRequest, 'images'> & { images: SelfieInput[] };

/** Stands in for each byte selfie while the rest of the request is validated. */
const PENDING_UPLOAD = 'blob:uploads/pending.png';

/** Bytes as apps hold them: a Buffer, a Uint8Array or another typed array (not a DataView). */
function isSelfieBytes(image: unknown): image is Uint8Array {
  return ArrayBuffer.isView(image) && !(image instanceof DataView);
}

/** Whether every selfie of the request is a path, URL or reference (none handed over as bytes). */
export function referencesOnly(request: PipelineStartRequest): request is PipelineRequest {
  return !Array.isArray(request.images) || !request.images.some(isSelfieBytes);
}

/**
 * Starts a pipeline whose selfies are (partly) bytes: the request and every selfie are checked
 * first (one InputError names every bad field, nothing stored or started); then the bytes are
 * stored where the run's workers read them, under its workflow id, and the run is started with
 * references to them. A request id that already started a run answers that run, storing nothing;
 * a start that surely did not happen leaves nothing stored. When it is not sure (Temporal did not
 * answer), the selfies stay for the run that may exist, or for the starter API's upload janitor.
 */
export async function startWithSelfieBytes(
  client: Client,
  request: PipelineStartRequest,
  options: StartPipelineOptions,
  target: { store: SelfieStore | undefined; roots: string[] | undefined },
): Promise<PipelineHandle> {
  const issues: InputIssue[] = [];
  const refuse = (err: unknown) => {
    if (!(err instanceof InputError)) throw err;
    issues.push(...err.issues);
  };
  let checked = new Map<number, SelfieBytes>();
  try {
    checked = checkSelfieBytes(request.images, target.store);
  } catch (err) {
    refuse(err);
  }
  const placeholders = {
    ...request,
    // Anything else that is not a string is left to the schema, which names its images.N.
    images: request.images.map((image) => (isSelfieBytes(image) ? PENDING_UPLOAD : image)),
  };
  try {
    await checkSelfieFiles(validatePipelineRequest(placeholders).images, target.roots);
    refuseOutOfBoundsPolling(placeholders, options.pollingBounds);
  } catch (err) {
    refuse(err);
  }
  if (issues.length > 0 || !target.store) throw new InputError(issues);

  const workflowId = pipelineWorkflowId(options.tenant ?? DEFAULT_TENANT, options.requestId);
  if (options.requestId !== undefined && (await runExists(client, workflowId))) {
    return getPipeline(client, workflowId);
  }
  const stored = await storeSelfieBytes(target.store, workflowId, request.images, checked);
  try {
    const run = await startPipelineRun(
      client,
      validatePipelineRequest({ ...request, images: stored.images }),
      {
        ...options,
        workflowId,
        ...(target.store.deleteUploadsAfterTraining ? { deleteUploadsAfterTraining: true } : {}),
      },
    );
    // Another call with the same request id started the run first, with selfies of its own.
    if (!run.created) await discardQuietly(stored.batch);
    return getPipeline(client, run.workflowId);
  } catch (err) {
    if (await surelyNotStarted(client, workflowId, err)) await discardQuietly(stored.batch);
    throw err;
  }
}

/**
 * Whether a start that threw surely started nothing: it was refused before reaching Temporal, or
 * Temporal says there is no such run. A timeout may come after the server took the start, and
 * deleting the selfies then would fail the run that did start.
 */
async function surelyNotStarted(client: Client, workflowId: string, err: unknown): Promise<boolean> {
  if (err instanceof InputError || err instanceof NamespaceNotSetUpError) return true;
  return runExists(client, workflowId).then(
    (exists) => !exists,
    () => false,
  );
}

/**
 * Deletes what a batch stored, without letting a failed delete hide the answer the caller is
 * owed; what a failed delete leaves is in the run's folder, where the upload janitor sweeps.
 */
async function discardQuietly(batch: UploadBatch): Promise<void> {
  await batch.discard().catch(() => undefined);
}

/**
 * The byte selfies of `images` by index, each a whole JPEG or PNG within the size limit: one
 * InputError names every bad `images.N` (and a missing store), and nothing is stored.
 */
export function checkSelfieBytes(
  images: readonly SelfieInput[],
  store: SelfieStore | undefined,
): Map<number, SelfieBytes> {
  const checked = new Map<number, SelfieBytes>();
  const issues: InputIssue[] = [];
  for (const [index, image] of images.entries()) {
    if (!isSelfieBytes(image)) continue;
    const path = `images.${index}`;
    if (!store) {
      issues.push({
        path,
        message:
          'selfie bytes need a selfie store: createPipelineClient({ selfieStore: openSelfieStore() }) from @avatar-pipeline/client/selfie-store',
      });
      continue;
    }
    // A copy: the caller's memory may change while the checked bytes wait to be stored.
    const bytes = Buffer.from(new Uint8Array(image.buffer, image.byteOffset, image.byteLength));
    const format = detectImageFormat(bytes.subarray(0, 16));
    if (bytes.length > DEFAULT_MAX_IMAGE_BYTES) {
      issues.push({
        path,
        message: `is ${bytes.length} bytes, more than the limit of ${DEFAULT_MAX_IMAGE_BYTES} bytes`,
      });
    } else if (!format) {
      issues.push({ path, message: 'is not a JPEG or PNG' });
    } else {
      const problem = imageProblem(bytes);
      if (problem) issues.push({ path, message: problem });
      else checked.set(index, { bytes, format, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
  }
  if (issues.length > 0) throw new InputError(issues);
  return checked;
}

/**
 * Stores the checked byte selfies under the run's upload folder (`uploads/<workflowId>/`, the only
 * one its workers read) and answers the images with `blob:` references in their place. The batch
 * is for discarding them when the start does not happen or finds an earlier run.
 */
export async function storeSelfieBytes(
  store: SelfieStore,
  workflowId: string,
  images: readonly SelfieInput[],
  checked: Map<number, SelfieBytes>,
): Promise<{ images: string[]; batch: UploadBatch }> {
  const batch = await UploadBatch.open(store, workflowId);
  try {
    const stored: string[] = [];
    for (const [index, image] of images.entries()) {
      const selfie = checked.get(index);
      stored.push(selfie ? (await batch.save(index, selfie)).reference : (image as string));
    }
    return { images: stored, batch };
  } catch (err) {
    await batch.discard();
    throw err;
  }
}

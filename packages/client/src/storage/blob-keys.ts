import { createHash } from 'node:crypto';

/** A key is slash-separated segments of letters, digits, `.`, `_` and `-`; no empty, `.` or `..` segment. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** The longest key a store accepts; it bounds the API's link tokens too (src/storage/link-token.ts). */
export const MAX_KEY_LENGTH = 900;

export function isValidKey(key: string): boolean {
  return (
    key.length > 0 &&
    key.length <= MAX_KEY_LENGTH &&
    key.split('/').every((s) => SEGMENT.test(s) && s !== '..')
  );
}

/** Throws naming the key; keys come from code, so a bad one is a bug, not bad input. */
export function assertValidKey(key: string): string {
  if (!isValidKey(key)) throw new Error(`invalid blob key "${key}": expected segments of [A-Za-z0-9._-]`);
  return key;
}

/** A key prefix (ends with `/`) is valid when it is empty or a valid key followed by a slash. */
export function assertValidPrefix(prefix: string): string {
  if (prefix !== '' && !(prefix.endsWith('/') && isValidKey(prefix.slice(0, -1)))) {
    throw new Error(`invalid blob key prefix "${prefix}": expected segments of [A-Za-z0-9._-] ending in "/"`);
  }
  return prefix;
}

/**
 * The directory of everything stored for one person of one tenant. Subject ids are the caller's
 * names for people (possibly an e-mail address), so the key holds a hash: bucket listings and logs
 * never show the id, and erasing a person is deleting one prefix. The tenant is part of what is
 * hashed: two tenants' `u-1` are two people, and one's erasure leaves the other's avatars.
 */
export function subjectPrefix(tenant: string, subjectId: string): string {
  const digest = createHash('sha256')
    .update(`avatar-pipeline subject\0${tenant}\0${subjectId}`, 'utf8')
    .digest('hex');
  return `subjects/${digest.slice(0, 32)}/`;
}

/** Runs started without a subject id keep their objects under the pipeline's own id. */
export function pipelinePrefix(pipelineId: string): string {
  return `pipelines/${keySegment(pipelineId)}/`;
}

/** A run's workflow id carries its tenant (tenantWorkflowId), so the pipeline prefix needs none added. */
export function ownerPrefix(owner: {
  tenant: string;
  subjectId?: string | undefined;
  pipelineId: string;
}): string {
  return owner.subjectId === undefined
    ? pipelinePrefix(owner.pipelineId)
    : subjectPrefix(owner.tenant, owner.subjectId);
}

export interface AvatarIds {
  modelId: number;
  orderId: number;
  avatarId: number;
}

/** One avatar, keyed by the provider's ids so that copying it again overwrites the same object. */
export function avatarKey(owner: string, ids: AvatarIds, extension: string): string {
  return assertValidKey(`${owner}avatars/${ids.modelId}/${ids.orderId}/${ids.avatarId}.${extension}`);
}

/**
 * The person's face (a descriptor, not a picture) as recorded from the selfies a model was trained
 * on, kept under its training run's owner, so erasing the person or the run removes it.
 */
export function faceKey(owner: string, modelId: number): string {
  return assertValidKey(`${owner}faces/model-${modelId}.json`);
}

/**
 * An id as one key segment: itself when it is already one, else a hash of it, so two different
 * ids never share a segment.
 */
export function keySegment(value: string): string {
  if (value.length <= 128 && SEGMENT.test(value)) return value;
  return `h-${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 32)}`;
}

/** Where every uploaded selfie is kept, and the only place a selfie reference may name. */
export const UPLOADS_ROOT = 'uploads/';

/** Every upload for one pipeline, whichever request brought it: `uploads/<workflowId>/`. */
export function uploadsPrefix(workflowId: string): string {
  return `${UPLOADS_ROOT}${keySegment(workflowId)}/`;
}

/**
 * One request's uploads for a pipeline: `uploads/<workflowId>/<batchId>/`. Each request has its
 * own folder, so a request repeating an Idempotency-Key can neither overwrite the selfies of the
 * run the first request started nor delete them when it is refused.
 */
export function uploadBatchPrefix(workflowId: string, batchId: string): string {
  return `${uploadsPrefix(workflowId)}${assertValidKey(batchId)}/`;
}

/** The name of a claim object: it names the pipeline its folder's uploads are for (ids may be hashed in keys). */
export const UPLOAD_CLAIM_NAME = 'pipeline.json';

export function uploadClaimKey(batchPrefix: string): string {
  return assertValidKey(`${batchPrefix}${UPLOAD_CLAIM_NAME}`);
}

export function selfieUploadKey(batchPrefix: string, index: number, extension: string): string {
  return assertValidKey(`${batchPrefix}selfie-${index + 1}.${extension}`);
}

import { createHash } from 'node:crypto';

/** A key is slash-separated segments of letters, digits, `.`, `_` and `-`; no empty, `.` or `..` segment. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export function isValidKey(key: string): boolean {
  return key.length > 0 && key.length <= 900 && key.split('/').every((s) => SEGMENT.test(s) && s !== '..');
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
 * The directory of everything stored for one person. Subject ids are the caller's names for
 * people (possibly an e-mail address), so the key holds a hash: bucket listings and logs never
 * show the id, and erasing a person is deleting one prefix.
 */
export function subjectPrefix(subjectId: string): string {
  const digest = createHash('sha256').update(`avatar-pipeline subject\0${subjectId}`, 'utf8').digest('hex');
  return `subjects/${digest.slice(0, 32)}/`;
}

/** Runs started without a subject id keep their objects under the pipeline's own id. */
export function pipelinePrefix(pipelineId: string): string {
  return `pipelines/${keySegment(pipelineId)}/`;
}

export function ownerPrefix(owner: { subjectId?: string | undefined; pipelineId: string }): string {
  return owner.subjectId === undefined ? pipelinePrefix(owner.pipelineId) : subjectPrefix(owner.subjectId);
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
 * An id as one key segment: itself when it is already one, else a hash of it, so two different
 * ids never share a segment.
 */
export function keySegment(value: string): string {
  if (value.length <= 128 && SEGMENT.test(value)) return value;
  return `h-${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 32)}`;
}

/** A pipeline's uploaded selfies in object storage: `uploads/<workflowId>/`. */
export function uploadsPrefix(workflowId: string): string {
  return `uploads/${keySegment(workflowId)}/`;
}

/** Names the pipeline the uploads are for (ids may have been hashed into the key). */
export function uploadClaimKey(workflowId: string): string {
  return `${uploadsPrefix(workflowId)}pipeline.json`;
}

export function selfieUploadKey(workflowId: string, index: number, extension: string): string {
  return assertValidKey(`${uploadsPrefix(workflowId)}selfie-${index + 1}.${extension}`);
}

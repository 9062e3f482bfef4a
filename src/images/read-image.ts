import { readFile, stat } from 'node:fs/promises';
import { DEFAULT_MAX_IMAGE_BYTES } from '@avatar-pipeline/client/provider/upload-image';
import { resolveImageReference, type ImageAccessPolicy } from './image-access';
import { dimensionProblem } from '@avatar-pipeline/client/images/image-dimensions';
import { fetchChecked, isRedirect, type CheckedUrl } from '../outbound/checked-fetch';
import { readStoredImage } from './stored-image';
import { isStoredReference } from '@avatar-pipeline/client/images/stored-reference';
import { InputError } from '@avatar-pipeline/client/errors';

export interface ReadImageOptions {
  maxBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  field?: string;
  /** The reading run's workflow id: a `blob:` reference must name one of its own uploads. */
  uploadsOf?: string;
}

/**
 * Reads a selfie's bytes from an allowed reference; refuses anything larger than maxBytes before
 * reading it all, and an image declaring more pixels than may be decoded (an image bomb) before
 * it goes anywhere that decodes it.
 */
export async function readImage(
  reference: string,
  policy: ImageAccessPolicy,
  options: ReadImageOptions = {},
): Promise<Buffer> {
  const field = options.field ?? 'image';
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  if (isStoredReference(reference)) {
    return readStoredImage(reference, policy.store, maxBytes, field, options.uploadsOf);
  }
  const resolved = await resolveImageReference(reference, policy, field);
  if (resolved.kind === 'file') {
    const info = await stat(resolved.path);
    if (!info.isFile()) throw InputError.field(field, 'is not a regular file');
    if (info.size > maxBytes) {
      throw InputError.field(field, `is ${info.size} bytes, more than the limit of ${maxBytes} bytes`);
    }
    return withinDimensions(await readFile(resolved.path), field);
  }
  return withinDimensions(await download(resolved, maxBytes, field, options), field);
}

function withinDimensions(bytes: Buffer, field: string): Buffer {
  const problem = dimensionProblem(bytes);
  if (problem) throw InputError.field(field, problem);
  return bytes;
}

async function download(
  target: CheckedUrl,
  maxBytes: number,
  field: string,
  options: ReadImageOptions,
): Promise<Buffer> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  // Redirects could lead off the allowed hosts; they are refused, not followed. The connection
  // goes to the addresses that were checked, not to a fresh DNS answer.
  return fetchChecked(target, { signal }, async (response) => {
    if (isRedirect(response)) {
      throw InputError.field(field, `redirects elsewhere (HTTP ${response.status}); give the final URL`);
    }
    if (response.status === 404 || response.status === 410)
      throw InputError.field(field, `was not found (HTTP ${response.status})`);
    if (!response.ok) throw new Error(`Fetching ${target.url.host} answered HTTP ${response.status}`);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > maxBytes)
      throw InputError.field(field, `is ${declared} bytes, more than the limit of ${maxBytes} bytes`);
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of response.body ?? []) {
      total += (chunk as Uint8Array).length;
      if (total > maxBytes) throw InputError.field(field, `is more than the limit of ${maxBytes} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return Buffer.concat(chunks);
  });
}

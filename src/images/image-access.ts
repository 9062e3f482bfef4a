import { isAbsolute } from 'node:path';
import type { BlobStore } from '@avatar-pipeline/client/storage/blob-store';
import {
  checkOutboundUrl,
  OutboundUrlError,
  type AddressLookup,
  type CheckedUrl,
} from '../outbound/checked-fetch';
import { InputError } from '@avatar-pipeline/client/errors';
import { checkImageFile } from '@avatar-pipeline/client/images/image-roots';

export interface ImageAccessPolicy {
  /** Directories selfie files may be read from (IMAGE_ROOTS). */
  roots: string[];
  /**
   * Directories no selfie file may be read from, whatever the roots say: the blob store's (BLOB_DIR,
   * or a directory STORAGE_URL), where every tenant's uploads and avatars lie. A caller's path
   * into it is answered as one outside the roots, so it tells nothing of what is stored there.
   */
  excluded?: string[];
  /** Hosts selfie URLs may point at (IMAGE_URL_HOSTS); listing a private host explicitly allows it. */
  urlHosts: string[];
  /** Resolves URL hosts; the system resolver unless a test gives another. */
  lookup?: AddressLookup;
  /** The blob store `s3://` references must lie in (STORAGE_URL); without it they are refused. */
  store?: BlobStore;
}

/** A URL comes with the addresses its host resolved to when checked (none for an IP literal): downloads connect only to those. */
export type ResolvedReference = { kind: 'file'; path: string } | ({ kind: 'url' } & CheckedUrl);

/**
 * Decides whether a selfie reference may be read, before anything is read: files must resolve
 * (symlinks included) inside an allowed root; URLs must be http(s) on an allowed host, and a host
 * resolving to a private or loopback address is refused unless it is listed explicitly.
 */
export async function resolveImageReference(
  reference: string,
  policy: ImageAccessPolicy,
  field = 'image',
): Promise<ResolvedReference> {
  if (/^https?:\/\//i.test(reference)) return { kind: 'url', ...(await checkUrl(reference, policy, field)) };
  if (!isAbsolute(reference))
    throw InputError.field(field, 'must be an absolute file path or an http(s) URL');
  return { kind: 'file', path: await checkImageFile(reference, policy, field) };
}

async function checkUrl(reference: string, policy: ImageAccessPolicy, field: string): Promise<CheckedUrl> {
  let host: string;
  try {
    host = new URL(reference).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    throw InputError.field(field, 'is not a valid URL');
  }
  const allowed = policy.urlHosts.map((h) => h.toLowerCase());
  if (!allowed.includes(host)) {
    throw InputError.field(field, `host "${host}" is not in the allowed image hosts (IMAGE_URL_HOSTS)`);
  }
  // Listed hosts are allowed, but not trusted: a listed name that resolves privately is still
  // refused (unless that address is listed too), so a DNS change cannot turn an allowed public
  // host into a way into the worker's network.
  try {
    return await checkOutboundUrl(reference, {
      allowedPrivateAddresses: allowed,
      ...(policy.lookup ? { lookup: policy.lookup } : {}),
    });
  } catch (err) {
    if (err instanceof OutboundUrlError) throw InputError.field(field, err.reason);
    throw err;
  }
}

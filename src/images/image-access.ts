import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { BlobStore } from '../storage/blob-store';
import {
  checkOutboundUrl,
  OutboundUrlError,
  type AddressLookup,
  type CheckedUrl,
} from '../outbound/checked-fetch';
import { InputError } from '../errors';

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
  return { kind: 'file', path: await checkFile(reference, policy, field) };
}

async function checkFile(reference: string, policy: ImageAccessPolicy, field: string): Promise<string> {
  const found = await locateWithinRoots(reference, policy);
  if (found === 'outside')
    throw InputError.field(field, 'is outside the allowed image directories (IMAGE_ROOTS)');
  if (found === 'missing') throw InputError.field(field, `file does not exist (${reference})`);
  return found.real;
}

/**
 * Where `path` leads (symlinks resolved) when it lies within one of `access.roots` and within none
 * of `access.excluded`. Both are checked before the path is looked at, and again after its symlinks
 * are resolved: anything outside gets 'outside' whether it exists or not, so answers say nothing
 * about files elsewhere on the server. 'missing': inside a root, but nothing is there. `allowRoot`
 * accepts a root itself (a folder).
 */
export async function locateWithinRoots(
  path: string,
  access: Pick<ImageAccessPolicy, 'roots' | 'excluded'>,
  allowRoot = false,
): Promise<{ real: string } | 'outside' | 'missing'> {
  const requested = resolve(path);
  const [roots, excluded] = await Promise.all([bothForms(access.roots), bothForms(access.excluded ?? [])]);
  const within = (dirs: DirForms[], candidate: string, acceptDir: boolean) =>
    dirs.some((dir) => isWithin(dir.given, candidate, acceptDir) || isWithin(dir.real, candidate, acceptDir));
  const allowed = (candidate: string) =>
    within(roots, candidate, allowRoot) && !within(excluded, candidate, true);
  if (!allowed(requested)) return 'outside';
  let real: string;
  try {
    real = await realpath(requested);
  } catch {
    return 'missing';
  }
  return allowed(real) ? { real } : 'outside';
}

interface DirForms {
  given: string;
  real: string;
}

/** A directory as given and with its symlinks resolved: a path may be named through either. */
function bothForms(dirs: string[]): Promise<DirForms[]> {
  return Promise.all(
    dirs.map(async (dir) => ({ given: resolve(dir), real: await realpath(dir).catch(() => resolve(dir)) })),
  );
}

/** Whether `candidate` lies inside `dir` (or is `dir` itself, when `acceptDir`). */
function isWithin(dir: string, candidate: string, acceptDir: boolean): boolean {
  const rel = relative(dir, candidate);
  if (rel === '') return acceptDir;
  return !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
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

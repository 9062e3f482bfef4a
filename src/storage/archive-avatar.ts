import {
  checkOutboundUrl,
  fetchChecked,
  isRedirect,
  OutboundUrlError,
  type AddressRules,
  type CheckedUrl,
} from '../outbound/checked-fetch';
import { detectImageFormat, MIME_TYPES } from '@avatar-pipeline/client/provider/image-format';
import type { Response } from 'undici';
import { avatarKey, type AvatarIds } from '@avatar-pipeline/client/storage/blob-keys';
import type { BlobStore } from '@avatar-pipeline/client/storage/blob-store';
import { extensionOf } from '@avatar-pipeline/client/storage/content-types';
import { AvatarPipelineError } from '@avatar-pipeline/client/errors';

export interface AvatarArchiveLimits {
  /** Larger images are refused, not stored. */
  maxBytes: number;
  /** How long one download may take. */
  timeoutMs: number;
}

export const DEFAULT_AVATAR_ARCHIVE_LIMITS: AvatarArchiveLimits = {
  maxBytes: 20 * 1024 * 1024,
  timeoutMs: 60_000,
};

export interface ArchivedAvatar {
  key: string;
  /** What a worker or the API resolves back to the object (`s3://…` or a path). */
  reference: string;
  bytes: number;
  contentType: string;
  /** Whether an earlier attempt had stored it already (nothing was downloaded). */
  alreadyArchived: boolean;
}

/** The provider no longer serves the image (404/410): asking again will not bring it back. */
export class AvatarSourceGoneError extends AvatarPipelineError {
  constructor(readonly status: number) {
    super(`the provider no longer serves this avatar (HTTP ${status})`);
  }
}

/** What the provider served is not an avatar we keep: too large, or not a PNG or JPEG. */
export class AvatarRejectedError extends AvatarPipelineError {
  constructor(reason: string) {
    super(reason);
  }
}

/**
 * Where avatars may be downloaded from: any host whose addresses are all public, and besides those
 * the provider's own origin (PROVIDER_BASE_URL's scheme, host and port, set by the operator, often
 * a private address beside the worker; the host's other ports are other services) and the hosts
 * listed in AVATAR_PRIVATE_HOSTS.
 */
export function avatarAddressRules(
  providerBaseUrl: string,
  privateHosts: readonly string[] = [],
): AddressRules {
  return { trustedOrigins: [new URL(providerBaseUrl).origin], trustedHosts: [...privateHosts] };
}

/** The extensions an archived avatar may have; one id is stored once, under one of them. */
const AVATAR_EXTENSIONS = ['png', 'jpg'] as const;

/**
 * Copies one avatar from the provider's URL into the store, under a key made of the provider's
 * ids. A second call for the same avatar (an activity retry, a later retry of the whole style)
 * finds the object and returns it without downloading, so no avatar is ever stored twice. The URL
 * is the provider's word, not the operator's: it is downloaded only under `rules`
 * (avatarAddressRules), from the addresses that were checked, and a redirect is refused.
 */
export async function archiveAvatar(
  store: BlobStore,
  avatar: { owner: string; ids: AvatarIds; sourceUrl: string },
  rules: AddressRules,
  limits: AvatarArchiveLimits = DEFAULT_AVATAR_ARCHIVE_LIMITS,
  signal?: AbortSignal,
): Promise<ArchivedAvatar> {
  for (const extension of AVATAR_EXTENSIONS) {
    const key = avatarKey(avatar.owner, avatar.ids, extension);
    const existing = await store.head(key);
    if (existing !== undefined && existing.bytes > 0) {
      return {
        key,
        reference: store.referenceOf(key),
        bytes: existing.bytes,
        contentType: MIME_BY_EXTENSION[extension],
        alreadyArchived: true,
      };
    }
  }
  const body = await downloadAvatar(avatar.sourceUrl, rules, limits, signal);
  const format = detectImageFormat(body);
  if (format === undefined)
    throw new AvatarRejectedError('the provider served something that is neither PNG nor JPEG');
  const contentType = MIME_TYPES[format];
  const key = avatarKey(avatar.owner, avatar.ids, extensionOf(contentType));
  await store.put(key, body, contentType);
  return { key, reference: store.referenceOf(key), bytes: body.length, contentType, alreadyArchived: false };
}

const MIME_BY_EXTENSION: Readonly<Record<(typeof AVATAR_EXTENSIONS)[number], string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
};

/**
 * An avatar's bytes from the provider's URL, under `rules` and `limits` as a copy is made (no
 * redirect followed). AvatarSourceGoneError and AvatarRejectedError are final; other errors may pass.
 */
export async function downloadAvatar(
  sourceUrl: string,
  rules: AddressRules,
  limits: AvatarArchiveLimits = DEFAULT_AVATAR_ARCHIVE_LIMITS,
  signal?: AbortSignal,
): Promise<Buffer> {
  return download(await checkSource(sourceUrl, rules), limits, signal);
}

async function checkSource(url: string, rules: AddressRules): Promise<CheckedUrl> {
  try {
    return await checkOutboundUrl(url, rules);
  } catch (err) {
    // A host that does not resolve now may later; anything else the provider would only repeat.
    if (!(err instanceof OutboundUrlError) || err.temporary) throw err;
    const hint = err.privateAddress ? '; list the host in AVATAR_PRIVATE_HOSTS to allow it' : '';
    throw new AvatarRejectedError(`the avatar URL ${err.reason}${hint}`);
  }
}

async function download(
  source: CheckedUrl,
  limits: AvatarArchiveLimits,
  signal: AbortSignal | undefined,
): Promise<Buffer> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  return fetchChecked(
    source,
    { signal: signal ? AbortSignal.any([signal, timeout]) : timeout },
    async (response) => readAvatar(response, limits),
  );
}

async function readAvatar(response: Response, limits: AvatarArchiveLimits): Promise<Buffer> {
  if (isRedirect(response)) {
    throw new AvatarRejectedError(
      `the avatar URL redirects elsewhere (HTTP ${response.status}); redirects are not followed`,
    );
  }
  if (response.status === 404 || response.status === 410) {
    await response.body?.cancel();
    throw new AvatarSourceGoneError(response.status);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`downloading the avatar answered HTTP ${response.status}`);
  }
  const declaredType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (declaredType !== '' && !Object.values(MIME_TYPES).includes(declaredType as 'image/png')) {
    await response.body?.cancel();
    throw new AvatarRejectedError(`the provider served ${declaredType}, not an image/png or image/jpeg`);
  }
  const declaredBytes = Number(response.headers.get('content-length') ?? NaN);
  if (declaredBytes > limits.maxBytes) {
    await response.body?.cancel();
    throw new AvatarRejectedError(
      `the avatar is ${declaredBytes} bytes, more than the limit of ${limits.maxBytes}`,
    );
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += (chunk as Uint8Array).length;
    if (total > limits.maxBytes) {
      throw new AvatarRejectedError(`the avatar is more than the limit of ${limits.maxBytes} bytes`);
    }
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  if (total === 0) throw new Error('the provider served an empty avatar');
  return Buffer.concat(chunks);
}

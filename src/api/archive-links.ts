import type { BlobLinkSigner, BlobStore } from '../storage';

/** How long a link to an archived avatar works unless API_ARCHIVE_LINK_TTL_SECONDS says; a fresh one comes with every GET. */
export const ARCHIVE_LINK_TTL_SECONDS = 15 * 60;

/**
 * When links signed at `nowMs` stop working, down to the second as the signed token holds it: an
 * answer that carries links says so (`linksExpireAt`), so a reader can ask for fresh ones in time.
 */
export function linksExpiry(nowMs: number, ttlSeconds = ARCHIVE_LINK_TTL_SECONDS): Date {
  return new Date(Math.floor((nowMs + ttlSeconds * 1000) / 1000) * 1000);
}

/** The path (below the API's origin) that serves filesystem objects to holders of a signed token. */
export const ARCHIVE_ROUTE_PREFIX = '/archive/';

interface ArchivableAvatar {
  archiveKey?: string;
  archivedUrl?: string;
}

interface LinkableResult {
  generations: Array<{ avatars: ArchivableAvatar[] }>;
}

/**
 * Adds `archivedUrl` to every archived avatar of a result whose object still exists: a presigned
 * URL from an S3 store, else an API link with a signed token. Objects are looked up with one
 * listing per owner, so an erased subject's avatars get no links although the result still names
 * their keys.
 */
export async function linkArchivedAvatars<T extends LinkableResult>(
  result: T,
  store: BlobStore,
  signer: BlobLinkSigner,
  /** The API's base URL (API_PUBLIC_URL, else the request's origin), without a trailing slash. */
  apiOrigin: string,
  nowMs = Date.now(),
  ttlSeconds = ARCHIVE_LINK_TTL_SECONDS,
): Promise<T> {
  const keys = result.generations.flatMap((g) =>
    g.avatars.flatMap((a) => (a.archiveKey ? [a.archiveKey] : [])),
  );
  if (keys.length === 0) return result;
  const existing = new Set<string>();
  for (const owner of new Set(keys.map(ownerOf))) {
    for (const key of await store.listKeys(owner)) existing.add(key);
  }
  const expiresAtMs = nowMs + ttlSeconds * 1000;
  const linkOf = async (key: string): Promise<string> =>
    (await store.signedUrl(key, ttlSeconds)) ??
    `${apiOrigin}${ARCHIVE_ROUTE_PREFIX}${signer.sign(key, expiresAtMs)}`;
  const generations = await Promise.all(
    result.generations.map(async (generation) => ({
      ...generation,
      avatars: await Promise.all(
        generation.avatars.map(async (avatar) =>
          avatar.archiveKey !== undefined && existing.has(avatar.archiveKey)
            ? { ...avatar, archivedUrl: await linkOf(avatar.archiveKey) }
            : avatar,
        ),
      ),
    })),
  );
  return { ...result, generations };
}

/** `subjects/<hash>/` or `pipelines/<id>/`: the first two segments of a key. */
function ownerOf(key: string): string {
  const [kind = '', owner = ''] = key.split('/');
  return `${kind}/${owner}/`;
}

interface LinkableProgress {
  styles: Array<{ avatars?: ArchivableAvatar[] }>;
}

/**
 * Adds `archivedUrl` to the avatars of every done style of a run's progress, as linkArchivedAvatars
 * does for its result: watchers show each style's avatars as soon as it is done.
 */
export async function linkProgressAvatars<T extends LinkableProgress>(
  progress: T,
  store: BlobStore,
  signer: BlobLinkSigner,
  apiOrigin: string,
  nowMs = Date.now(),
  ttlSeconds = ARCHIVE_LINK_TTL_SECONDS,
): Promise<T> {
  if (!progress.styles.some((style) => style.avatars !== undefined)) return progress;
  const linked = await linkArchivedAvatars(
    { generations: progress.styles.map((style) => ({ avatars: style.avatars ?? [] })) },
    store,
    signer,
    apiOrigin,
    nowMs,
    ttlSeconds,
  );
  return {
    ...progress,
    styles: progress.styles.map((style, index) =>
      style.avatars === undefined ? style : { ...style, avatars: linked.generations[index]!.avatars },
    ),
  };
}

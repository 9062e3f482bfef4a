import type { ProviderClient } from './client';
import type { CallOptions } from './http-transport';
import { ProviderBadRequestError } from './errors';
import type { Avatar } from './schemas';

export interface CollectAvatarsOptions extends CallOptions {
  /** Bound on pages walked, so a provider that never returns an empty page cannot loop us forever. */
  maxPages?: number;
}

export interface CollectedAvatars {
  avatars: Avatar[];
  /** The page index at which avatars were first found (0 or 1), or undefined when there were none. */
  firstPage: number | undefined;
  pagesRead: number;
}

const DEFAULT_MAX_PAGES = 100;

/**
 * Reads every avatar of an order. The contract leaves the first page index (0 or 1) and the page
 * size open, and a page before the first may be empty or an error: start at 0, move on to 1 if
 * needed, then walk upward until a page adds no avatar we have not seen (an empty page, or a
 * provider that ignores the page index and repeats itself).
 */
export async function collectAvatars(
  client: ProviderClient,
  orderId: number,
  options: CollectAvatarsOptions = {},
): Promise<CollectedAvatars> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const seen = new Map<number, Avatar>();
  let firstPage: number | undefined;
  let pagesRead = 0;
  for (let page = 0; page < maxPages; page++) {
    const avatars = await readPage(client, orderId, page, options);
    pagesRead++;
    const fresh = avatars.filter((a) => !seen.has(a.avatar_id));
    for (const avatar of fresh) seen.set(avatar.avatar_id, avatar);
    if (firstPage === undefined) {
      if (fresh.length > 0) firstPage = page;
      // Page 0 may lie before the first page: only give up once page 1 is empty as well.
      if (page === 0 || fresh.length > 0) continue;
      break;
    }
    // A 1-based provider may answer page 0 as if it were page 1; that single repeat is not the end.
    const repeatOfClampedFirstPage = firstPage === 0 && page === 1 && avatars.length > 0;
    if (fresh.length === 0 && !repeatOfClampedFirstPage) break;
  }
  return { avatars: [...seen.values()], firstPage, pagesRead };
}

async function readPage(
  client: ProviderClient,
  orderId: number,
  page: number,
  call: CallOptions,
): Promise<Avatar[]> {
  try {
    return await client.listAvatarPage(orderId, page, call);
  } catch (err) {
    // Only the page before the first may legitimately be refused.
    if (page === 0 && err instanceof ProviderBadRequestError) return [];
    throw err;
  }
}

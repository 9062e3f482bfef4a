import type { ProviderClient } from './client';
import type { CallOptions } from './http-transport';
import { ProviderBadRequestError } from './errors';
import type { Avatar } from './schemas';
import { AvatarPageWalk } from './avatar-page-walk';

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

/** Reads every avatar of an order, walking the pages as {@link AvatarPageWalk} describes. */
export async function collectAvatars(
  client: ProviderClient,
  orderId: number,
  options: CollectAvatarsOptions = {},
): Promise<CollectedAvatars> {
  const walk = new AvatarPageWalk<Avatar>((a) => a.avatar_id, options.maxPages ?? DEFAULT_MAX_PAGES);
  for (let page = walk.next; page !== undefined; page = walk.next) {
    walk.add(await readAvatarPage(client, orderId, page, options));
  }
  return { avatars: walk.avatars, firstPage: walk.firstPage, pagesRead: walk.pagesRead };
}

/** One page of avatars; page 0 refused (before the first page of a 1-based provider) reads as empty. */
export async function readAvatarPage(
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

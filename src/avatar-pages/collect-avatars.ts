import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { CallOptions } from '@avatar-pipeline/client/provider/http-transport';
import { ProviderBadRequestError } from '@avatar-pipeline/client/provider/errors';
import type { Avatar } from '@avatar-pipeline/client/provider/schemas';
import { walkAvatarPages, type WalkedPages } from './avatar-page-origin';

export interface CollectAvatarsOptions extends CallOptions {
  /** Bound on pages walked, so a provider that never returns an empty page cannot loop us forever. */
  maxPages?: number;
}

export type CollectedAvatars = WalkedPages<Avatar>;

const DEFAULT_MAX_PAGES = 100;

/** Reads every avatar of an order, walking the pages as AvatarPageWalk describes. */
export async function collectAvatars(
  client: ProviderClient,
  orderId: number,
  options: CollectAvatarsOptions = {},
): Promise<CollectedAvatars> {
  return walkAvatarPages<Avatar>(
    (a) => a.avatar_id,
    (page) => readAvatarPage(client, orderId, page, options),
    { maxPages: options.maxPages ?? DEFAULT_MAX_PAGES },
  );
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

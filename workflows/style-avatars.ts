import type { AvatarRef, GenerationResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { walkAvatarPages, type AvatarPageOrigin } from '../src/avatar-pages/avatar-page-origin';
import { reads, type ProviderRoute } from './activity-proxies';
import { archiveAvatars, type ArchiveOwner } from './archive-avatars';
import type { Slots } from './slots';

/** A style whose generation order is DONE. */
export interface DoneStyle {
  modelId: number;
  styleId: number;
  orderId: number;
}

export interface CollectSettings {
  route: ProviderRoute;
  /** Shared by the styles of one run: where the provider's avatar pages start, once one walk has learnt it. */
  origin: AvatarPageOrigin;
  /** Archive the avatars into the blob store under this owner, as many at once as the run's slots allow; absent: no archiving. */
  archive?: { owner: ArchiveOwner; slots: Slots };
}

/**
 * Collects every avatar of a DONE style's order and archives them. One activity per avatar page:
 * each provider activity is one request, so the provider queue's rate limit is a request rate. The
 * run's first walk starts where the worker has seen the provider's pages start (listFirstAvatarPage),
 * so a run on a 1-based provider does not pay for an empty page 0 once a worker has learnt that.
 * Summaries name the style and order, so each style can be followed in the Temporal UI.
 */
export async function collectStyle(style: DoneStyle, settings: CollectSettings): Promise<GenerationResult> {
  const { styleId, orderId } = style;
  const { avatars: collected } = await walkAvatarPages<AvatarRef>(
    (a) => a.avatarId,
    async (page) => {
      const { avatars } = await reads.listAvatarPage.executeWithOptions(
        { summary: `read avatar page ${page} of order ${orderId} (style ${styleId})`, ...settings.route },
        [{ orderId, page }],
      );
      return avatars;
    },
    {
      origin: settings.origin,
      readFirst: () =>
        reads.listFirstAvatarPage.executeWithOptions(
          { summary: `read the first avatar page of order ${orderId} (style ${styleId})`, ...settings.route },
          [{ orderId }],
        ),
    },
  );
  if (settings.archive === undefined) return { styleId, orderId, status: 'DONE', avatars: collected };
  const { avatars, notArchived } = await archiveAvatars(
    settings.archive.owner,
    style,
    collected,
    settings.archive.slots,
  );
  return { styleId, orderId, status: 'DONE', avatars, ...(notArchived.length > 0 ? { notArchived } : {}) };
}

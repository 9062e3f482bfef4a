import type { AvatarRef } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { AvatarPageStart } from '../src/avatar-pages/avatar-page-start';
import { readAvatarPage } from '../src/avatar-pages/collect-avatars';
import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { Avatar } from '@avatar-pipeline/client/provider/schemas';
import { call } from './provider-call';

export interface AvatarPageActivityDependencies {
  provider: ProviderClient;
  /** Where the provider's avatar pages start, as this worker learns from its reads (ActivityDependencies). */
  pageStart: AvatarPageStart;
}

/** The provider activities that read an order's avatars, a page at a time. Part of createProviderActivities. */
export function createAvatarPageActivities({ provider, pageStart }: AvatarPageActivityDependencies) {
  /** One page of an order's avatars, noted in what this worker knows of where pages start. */
  const readPage = async (orderId: number, page: number): Promise<AvatarRef[]> => {
    const avatars = await readAvatarPage(provider, orderId, page, call());
    pageStart.noteRead(orderId, page, avatars.length);
    return avatars.map(toAvatarRef);
  };

  return {
    /** One page of an order's avatars: a single provider request, so a rate limit on activities is one on requests. */
    async listAvatarPage(input: { orderId: number; page: number }): Promise<{ avatars: AvatarRef[] }> {
      return { avatars: await readPage(input.orderId, input.page) };
    },

    /**
     * The first page of an order's avatars where this worker has seen the provider's pages start
     * (page 0 until it has learnt otherwise), and which page that was: a run that has not learnt
     * the start yet begins its first walk here instead of paying a request for page 0.
     */
    async listFirstAvatarPage(input: { orderId: number }): Promise<{ page: number; avatars: AvatarRef[] }> {
      const page = pageStart.firstPage;
      return { page, avatars: await readPage(input.orderId, page) };
    },
  };
}

function toAvatarRef(a: Avatar): AvatarRef {
  return {
    avatarId: a.avatar_id,
    imageUrl: a.image_url,
    ...(a.filename_small ? { thumbnailUrl: a.filename_small } : {}),
  };
}

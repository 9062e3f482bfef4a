import { ActivityFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { StorageActivities } from '../activities/storage-activities';
import type { AvatarRef } from '../src/contracts/pipeline-state';

/**
 * Copies keep retrying through a store outage (minutes, not the seconds of an outage we expect),
 * but give up on an avatar the provider no longer serves or serves wrongly (the activity marks
 * those AvatarSourceGone / AvatarRejected). Copies are downloads, not provider requests, so they
 * run on the pipeline's own queue, outside the provider's rate limit.
 */
const storage = proxyActivities<StorageActivities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '15 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '15 seconds',
    nonRetryableErrorTypes: ['AvatarSourceGone', 'AvatarRejected'],
  },
});

export interface ArchiveOwner {
  tenant: string;
  subjectId?: string;
  pipelineId: string;
}

export interface ArchivedAvatars {
  /** The avatars in their order, each with `archiveKey` when its copy is in the store. */
  avatars: AvatarRef[];
  /** Avatar ids whose copy failed for good; the provider's URL is all the result has for them. */
  notArchived: number[];
}

/**
 * One activity per avatar, all at once. A copy that fails for good leaves that avatar without an
 * archive key instead of failing the style: the provider's URL still works for now.
 */
export async function archiveAvatars(
  owner: ArchiveOwner,
  ids: { modelId: number; orderId: number; styleId: number },
  avatars: AvatarRef[],
): Promise<ArchivedAvatars> {
  const copies = await Promise.all(
    avatars.map(async (avatar): Promise<AvatarRef> => {
      if (avatar.archiveKey !== undefined) return avatar;
      try {
        const { key } = await storage.archiveAvatar.executeWithOptions(
          { summary: `archive avatar ${avatar.avatarId} of order ${ids.orderId} (style ${ids.styleId})` },
          [
            {
              tenant: owner.tenant,
              ...(owner.subjectId !== undefined ? { subjectId: owner.subjectId } : {}),
              pipelineId: owner.pipelineId,
              modelId: ids.modelId,
              orderId: ids.orderId,
              avatarId: avatar.avatarId,
              sourceUrl: avatar.imageUrl,
            },
          ],
        );
        return { ...avatar, archiveKey: key };
      } catch (err) {
        if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
        return avatar;
      }
    }),
  );
  return {
    avatars: copies,
    notArchived: copies.filter((a) => a.archiveKey === undefined).map((a) => a.avatarId),
  };
}

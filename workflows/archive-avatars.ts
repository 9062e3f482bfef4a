import { ActivityFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { StorageActivities } from '../activities/storage-activities';
import type { AvatarRef } from '@avatar-pipeline/client/contracts/pipeline-state';
import { FINAL_ARCHIVE_FAILURES } from '@avatar-pipeline/client/contracts/failure-types';
import { Slots } from './slots';

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
    nonRetryableErrorTypes: [...FINAL_ARCHIVE_FAILURES],
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
 * Copies of one run scheduled at once, across all its styles. Temporal fails a workflow task that
 * would leave more than 2,000 activities pending (PENDING_ACTIVITIES_LIMIT_EXCEEDED), and a provider
 * page may hold thousands of avatars: the rest wait for a slot.
 */
export const ARCHIVES_AT_ONCE = 100;

/** The run's one bound on its pending copies, shared by its styles. */
export function archiveSlots(): Slots {
  return new Slots(ARCHIVES_AT_ONCE);
}

/**
 * One activity per avatar, at most `slots` allows at once. A copy that fails for good leaves that
 * avatar without an archive key instead of failing the style: the provider's URL still works for now.
 */
export async function archiveAvatars(
  owner: ArchiveOwner,
  ids: { modelId: number; orderId: number; styleId: number },
  avatars: AvatarRef[],
  slots: Slots,
): Promise<ArchivedAvatars> {
  // A few lanes walk the list, each copy waiting for one of the run's slots: the run never holds
  // more than a lane's worth of waiting copies per style, however long the page.
  const copies = [...avatars];
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let index = next++; index < copies.length; index = next++) {
      const avatar = copies[index]!;
      if (avatar.archiveKey === undefined)
        copies[index] = await slots.run(() => archiveOne(owner, ids, avatar));
    }
  };
  await Promise.all(Array.from({ length: Math.min(ARCHIVES_AT_ONCE, copies.length) }, lane));
  return {
    avatars: copies,
    notArchived: copies.filter((a) => a.archiveKey === undefined).map((a) => a.avatarId),
  };
}

async function archiveOne(
  owner: ArchiveOwner,
  ids: { modelId: number; orderId: number; styleId: number },
  avatar: AvatarRef,
): Promise<AvatarRef> {
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
}

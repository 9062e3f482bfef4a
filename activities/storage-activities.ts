import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  archiveAvatar,
  AvatarRejectedError,
  AvatarSourceGoneError,
  deleteUploadBatch,
  ownerPrefix,
  uploadFoldersOf,
  type AvatarArchiveLimits,
  type BlobStore,
} from '../src/storage';
import type { AddressRules } from '../src/outbound/checked-fetch';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

export interface StorageDependencies {
  store: BlobStore;
  /** Where avatar URLs may lead (avatarAddressRules): the provider's origin, AVATAR_PRIVATE_HOSTS, public addresses. */
  rules: AddressRules;
  limits?: AvatarArchiveLimits;
}

export interface ArchiveAvatarInput {
  /** The run's tenant: two tenants' subjects of one id are two people, kept apart. */
  tenant: string;
  /** Whose avatar: objects are kept under the subject (or, without one, the pipeline), so erasure finds them. */
  subjectId?: string;
  pipelineId: string;
  modelId: number;
  orderId: number;
  avatarId: number;
  sourceUrl: string;
}

export interface ArchiveAvatarResult {
  /** The object's key in the store; links are made from it when a result is read. */
  key: string;
  bytes: number;
  contentType: string;
}

/** Copies of provider avatars into the blob store. Downloads, not provider API requests: they run on the pipeline queue. */
export function createStorageActivities({ store, rules, limits }: StorageDependencies) {
  return {
    async archiveAvatar(input: ArchiveAvatarInput): Promise<ArchiveAvatarResult> {
      const owner = ownerPrefix({
        tenant: input.tenant,
        subjectId: input.subjectId,
        pipelineId: input.pipelineId,
      });
      const ids = { modelId: input.modelId, orderId: input.orderId, avatarId: input.avatarId };
      try {
        const archived = await archiveAvatar(
          store,
          { owner, ids, sourceUrl: input.sourceUrl },
          rules,
          limits,
          Context.current().cancellationSignal,
        );
        return { key: archived.key, bytes: archived.bytes, contentType: archived.contentType };
      } catch (err) {
        if (err instanceof AvatarSourceGoneError) {
          throw ApplicationFailure.create({
            type: FAILURE_TYPES.avatarSourceGone,
            message: err.message,
            nonRetryable: true,
          });
        }
        if (err instanceof AvatarRejectedError) {
          throw ApplicationFailure.create({
            type: FAILURE_TYPES.avatarRejected,
            message: err.message,
            nonRetryable: true,
          });
        }
        throw err;
      }
    },

    /**
     * Deletes the run's uploaded selfies (its `blob:` references, with their folders' claims)
     * once training no longer needs them. Only the calling run's own folders: a reference to
     * another run's uploads deletes nothing. Deleting what is gone already succeeds, so a retry
     * is safe.
     */
    async deleteUploadedSelfies(input: { images: string[] }): Promise<{ deleted: number }> {
      const run = Context.current().info.workflowExecution;
      if (run === undefined) return { deleted: 0 };
      let deleted = 0;
      for (const folder of uploadFoldersOf(run.workflowId, input.images)) {
        deleted += (await deleteUploadBatch(store, await store.listKeys(folder))).length;
      }
      return { deleted };
    },
  };
}

export type StorageActivities = ReturnType<typeof createStorageActivities>;

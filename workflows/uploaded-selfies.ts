import { CancellationScope, log, proxyActivities } from '@temporalio/workflow';
import type { StorageActivities } from '../activities/storage-activities';
import type { PipelineWorkflowInput } from '@avatar-pipeline/client/contracts/pipeline-input';

/** A few deletions in the workers' own store: short attempts, retried for a few minutes. */
const storage = proxyActivities<StorageActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * Deletes the selfies uploaded with the run once training no longer needs them: after the model
 * is trained, or when training failed or was cancelled. Only runs the API started with uploads
 * under SELFIE_RETENTION=after-training ask for it. A store that stays down does not fail the run:
 * the API's upload janitor sweeps what is left.
 */
export async function deleteUploadedSelfies(
  input: Pick<PipelineWorkflowInput, 'images' | 'deleteUploadsAfterTraining'>,
): Promise<void> {
  if (!input.deleteUploadsAfterTraining) return;
  try {
    await CancellationScope.nonCancellable(() =>
      storage.deleteUploadedSelfies.executeWithOptions({ summary: 'delete the uploaded selfies' }, [
        { images: input.images },
      ]),
    );
  } catch (err) {
    log.warn('The uploaded selfies were not deleted; the upload janitor will sweep them', {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

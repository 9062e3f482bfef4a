import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { CheckActivities, FaceOwnerInput } from '../activities/check-activities';
import type { AvatarRef } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { RunChecks } from '@avatar-pipeline/client/contracts/quality-checks';
import { NON_RETRYABLE_FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

/**
 * Model inference on the check workers, which may be busy with a campaign's thousands of avatars:
 * the schedule-to-close bound covers the wait in their queue. Attempts heartbeat after each image,
 * so one whose worker died is retried after a minute, not after its whole timeout.
 */
const checks = proxyActivities<CheckActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  scheduleToCloseTimeout: '6 hours',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURE_TYPES],
  },
});

/** Avatars one check activity reads: a few seconds of work, spread over the check workers. */
const AVATARS_PER_CHECK = 8;

/** Whose face a run's avatars are compared with: the run that trained the model (this one, for a pipeline). */
export function faceOwnerOf(run: {
  tenant: string;
  subjectId?: string | undefined;
  checks?: RunChecks | undefined;
}): FaceOwnerInput {
  const trainedBy = run.checks?.avatars?.trainedBy;
  if (trainedBy) return { tenant: run.tenant, ...trainedBy };
  return {
    tenant: run.tenant,
    pipelineId: workflowInfo().workflowId,
    ...(run.subjectId !== undefined ? { subjectId: run.subjectId } : {}),
  };
}

/**
 * A run that will check its avatars records the person's face from the selfies its model is trained
 * on, while they are still stored: later runs under the model compare their avatars with it too.
 */
export async function recordFace(
  run: { tenant: string; subjectId?: string | undefined; checks?: RunChecks | undefined; images: string[] },
  modelId: number,
): Promise<void> {
  if (run.checks?.avatars === undefined) return;
  await checks.recordFace.executeWithOptions(
    {
      summary: `record the face of model ${modelId} from ${run.images.length} selfies`,
      taskQueue: run.checks.taskQueue,
    },
    [{ owner: faceOwnerOf(run), modelId, images: run.images }],
  );
}

/** Each avatar of a done style's order with its check, in their order; the batches run at once. */
export async function checkAvatars(
  avatars: AvatarRef[],
  target: { modelId: number; styleId: number; orderId: number },
  face: FaceOwnerInput,
  taskQueue: string,
): Promise<AvatarRef[]> {
  const batches: AvatarRef[][] = [];
  for (let i = 0; i < avatars.length; i += AVATARS_PER_CHECK)
    batches.push(avatars.slice(i, i + AVATARS_PER_CHECK));
  const checked = await Promise.all(
    batches.map(async (batch, index) => {
      const { checks: verdicts } = await checks.checkAvatars.executeWithOptions(
        {
          summary: `check avatars ${index * AVATARS_PER_CHECK + 1}-${index * AVATARS_PER_CHECK + batch.length} of order ${target.orderId} (style ${target.styleId})`,
          taskQueue,
        },
        [{ face, modelId: target.modelId, avatars: batch }],
      );
      return batch.map((avatar, i) => ({ ...avatar, check: verdicts[i]! }));
    }),
  );
  return checked.flat();
}

/** The reasons avatars failed, each once, for a style's error. */
export function failureReasons(avatars: AvatarRef[]): string {
  const reasons = new Set(
    avatars.flatMap((a) => a.check?.reasons ?? []).map((r) => r.replace(/ \(.*\)$/, '')),
  );
  return [...reasons].join('; ');
}

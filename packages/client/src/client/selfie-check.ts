import {
  WorkflowFailedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type Client,
} from '@temporalio/client';
import type { CheckPlacement } from '../config/run-placement';
import {
  selfieCheckWorkflowId,
  type FaceOwner,
  type RunChecks,
  type SelfieCheckInput,
  type SelfieCheckReport,
} from '../contracts/quality-checks';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { AvatarPipelineError, InputError, listMessage } from '../errors';
import { runExists } from './start-run';

/** A check that has not answered by then fails the start (the check workers are down or swamped). */
const SELFIE_CHECK_TIMEOUT = '5 minutes';

/**
 * The checks a run carries, from the starter's placement. `selfiesAt` says who checks the selfies:
 * the starter before the start (`at-start`, so a refused set starts nothing and the caller hears why),
 * the run before its first provider write (`in-run`: a campaign's subjects, started by the
 * campaign's workflow), or no one (a generation run has no selfies). `trainedBy` is a generation
 * run's model's trainer, whose recorded face its avatars are compared with. Undefined when the
 * placement has no checks, or none that apply.
 */
export function runChecksOf(
  placement: CheckPlacement | undefined,
  selfiesAt: 'at-start' | 'in-run' | undefined,
  trainedBy?: FaceOwner,
): RunChecks | undefined {
  if (placement === undefined) return undefined;
  const selfies = placement.selfies && selfiesAt !== undefined ? { selfies: selfiesAt } : {};
  const avatars = placement.avatars
    ? { avatars: { regenerations: placement.avatarRegenerations, ...(trainedBy ? { trainedBy } : {}) } }
    : {};
  if (!('selfies' in selfies) && !('avatars' in avatars)) return undefined;
  return { taskQueue: placement.taskQueue, ...selfies, ...avatars };
}

/**
 * Checks a run's selfies on the check workers before the run exists: a short workflow
 * (`<run>/selfie-check`, on the run's task queue) whose one activity runs on the checks' queue, where
 * the face models are. Throws an InputError naming each refused `images.N` and why; nothing is started
 * then. A run that exists already (a repeated request id) is not checked again: its selfies may be
 * deleted by now, and its start answers the run it started. A check that gets no answer (no check
 * worker polls the checks' queue, or they are swamped) fails the start with SelfieChecksUnansweredError.
 */
export async function checkSelfiesBeforeStart(
  client: Client,
  run: { workflowId: string; taskQueue: string; images: readonly string[] },
  checks: RunChecks | undefined,
): Promise<void> {
  if (checks?.selfies !== 'at-start') return;
  if (await runExists(client, run.workflowId)) return;
  const input: SelfieCheckInput = { images: [...run.images], taskQueue: checks.taskQueue };
  const report = await client.workflow
    .execute<(input: SelfieCheckInput) => Promise<SelfieCheckReport>>(WORKFLOW_TYPES.selfieCheck, {
      taskQueue: run.taskQueue,
      workflowId: selfieCheckWorkflowId(run.workflowId),
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      workflowExecutionTimeout: SELFIE_CHECK_TIMEOUT,
      staticSummary: `Check ${run.images.length} selfies before the run starts`,
    })
    .catch((err: unknown) => {
      if (err instanceof WorkflowFailedError) throw new SelfieChecksUnansweredError(checks.taskQueue, err);
      throw err;
    });
  if (report.issues.length > 0)
    throw new InputError(report.issues, listMessage('Selfies refused', report.issues));
}

/** The selfie checks gave no answer in time: the start is refused, nothing started (the API answers 503). */
export class SelfieChecksUnansweredError extends AvatarPipelineError {
  constructor(taskQueue: string, cause: unknown) {
    super(
      `The selfie checks did not answer: is a check worker polling task queue "${taskQueue}" (CHECK_WORKER)? Nothing was started`,
      { cause },
    );
  }
}

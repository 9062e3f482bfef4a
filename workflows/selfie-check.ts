import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { CheckActivities } from '../activities/check-activities';
import type {
  RunChecks,
  SelfieCheckInput,
  SelfieCheckReport,
} from '@avatar-pipeline/client/contracts/quality-checks';
import { FAILURE_TYPES, NON_RETRYABLE_FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

/**
 * A starter waits for this answer before it starts the run: attempts are short, and the whole is
 * bounded well within the check workflow's own timeout, so a start never hangs on missing check workers.
 */
const beforeStart = proxyActivities<CheckActivities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '4 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURE_TYPES],
  },
});

/**
 * Within a run (a campaign's subject), the check may queue behind thousands of others on the check
 * workers: the schedule-to-close bound covers that wait.
 */
const inRun = proxyActivities<CheckActivities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '6 hours',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURE_TYPES],
  },
});

/**
 * The starter's check of a run's selfies (`<run>/selfie-check`), before the run exists: the check
 * workers read each selfie as the run would and answer what they refuse. See
 * packages/client/src/client/selfie-check.ts.
 */
export async function selfieCheck(input: SelfieCheckInput): Promise<SelfieCheckReport> {
  return beforeStart.checkSelfieQuality.executeWithOptions(
    { summary: `check ${input.images.length} selfies`, taskQueue: input.taskQueue },
    [{ images: input.images }],
  );
}

/**
 * A run whose selfies no starter checked (a campaign's subject) checks them itself, before its first
 * provider write; a refused set fails the run as bad input, naming each selfie.
 */
export async function checkSelfiesInRun(images: string[], checks: RunChecks | undefined): Promise<void> {
  if (checks?.selfies !== 'in-run') return;
  const report = await inRun.checkSelfieQuality.executeWithOptions(
    { summary: `check ${images.length} selfies before creating the model`, taskQueue: checks.taskQueue },
    [{ images }],
  );
  if (report.issues.length === 0) return;
  throw ApplicationFailure.create({
    type: FAILURE_TYPES.invalidInput,
    message: `Selfies refused:\n${report.issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`,
    nonRetryable: true,
    details: [{ issues: report.issues }],
  });
}

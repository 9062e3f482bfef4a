/**
 * What a run carries of the operator's quality checks (SELFIE_CHECKS, CHECKS_TASK_QUEUE), resolved
 * by its starter. The thresholds are the check workers' own settings: a run only says which checks
 * it wants and where they run.
 */
export interface RunChecks {
  /** The checks' task queue, polled by check workers apart from the provider queue. */
  taskQueue: string;
  /**
   * `at-start`: the starter checked the selfies before starting the run (a refused set starts
   * nothing); `in-run`: the run checks them before its first provider write (campaign subjects).
   */
  selfies: 'at-start' | 'in-run';
}

/** What a check of a run's selfies asks for: the references, read as the run will read them. */
export interface SelfieCheckInput {
  images: string[];
  /** The checks' task queue (RunChecks.taskQueue). */
  taskQueue: string;
}

/** The selfies a check refused, each by its field (`images.N`) and reason; empty when all passed. */
export interface SelfieCheckReport {
  issues: { path: string; message: string }[];
}

/** `<run>/selfie-check`: the starter's check of a run's selfies, before the run itself starts. */
export const SELFIE_CHECK_SUFFIX = '/selfie-check';

export function selfieCheckWorkflowId(runWorkflowId: string): string {
  return `${runWorkflowId}${SELFIE_CHECK_SUFFIX}`;
}

/** The run whose selfies a check reads: a starter's check reads its run's uploads, a run its own. */
export function runOfSelfieCheck(workflowId: string): string {
  return workflowId.endsWith(SELFIE_CHECK_SUFFIX)
    ? workflowId.slice(0, -SELFIE_CHECK_SUFFIX.length)
    : workflowId;
}

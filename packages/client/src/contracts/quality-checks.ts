/**
 * What a run carries of the operator's quality checks (SELFIE_CHECKS, AVATAR_CHECKS,
 * AVATAR_CHECK_REGENERATIONS, CHECKS_TASK_QUEUE), resolved by its starter. The thresholds are the
 * check workers' own settings: a run only says which checks it wants and where they run.
 */
export interface RunChecks {
  /** The checks' task queue, polled by check workers apart from the provider queue. */
  taskQueue: string;
  /**
   * `at-start`: the starter checked the selfies before starting the run (a refused set starts
   * nothing); `in-run`: the run checks them before its first provider write (campaign subjects).
   * Absent: the selfies are not checked.
   */
  selfies?: 'at-start' | 'in-run';
  /** Absent: avatars are not checked (and a training run records no face for later checks). */
  avatars?: AvatarChecks;
}

/** The avatar checks a run makes when each style's order is done. */
export interface AvatarChecks {
  /** AVATAR_CHECK_REGENERATIONS: how many more orders a style whose avatars fail may be given. */
  regenerations: number;
  /**
   * A generation run's model was trained by another run, whose recorded face the avatars are
   * compared with; absent for a pipeline (it trained the model itself) or a model no run of the
   * tenant trained.
   */
  trainedBy?: FaceOwner;
}

/**
 * The run whose selfies a model was trained on: the person's face is kept with that run's other
 * objects in the blob store (under its subject, else under the run), so erasure removes it.
 */
export interface FaceOwner {
  pipelineId: string;
  subjectId?: string;
}

/** One avatar's verdict: `passed` only when no check found a reason; `notChecked` names checks that could not run. */
export interface AvatarCheck {
  passed: boolean;
  reasons: string[];
  notChecked?: string[];
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

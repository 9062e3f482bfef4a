import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';

/** How one poll loop fared against one training. */
export interface PollingRun {
  /** Status calls until DONE was seen. */
  statusCalls: number;
  /** From the moment training finished to the status call that saw it. */
  lagMs: number;
  /** Between which reads it finished, counted from its run: what the workers learn from. */
  finish?: { afterMs: number; byMs: number };
}

/** A policy as the bench names it, in the pipeline input's terms (so the workflow can run it too). */
export interface NamedPolicy {
  name: string;
  polling: PollingOptions;
}

/** A fixed interval is the adaptive policy pinned: no backoff, and floor = both caps = the interval. */
export function fixedInterval(ms: number): PollingOptions {
  return {
    initialIntervalMs: ms,
    minIntervalMs: ms,
    maxIntervalMs: ms,
    maxProgressIntervalMs: ms,
    backoffCoefficient: 1,
  };
}

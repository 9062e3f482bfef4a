import { setTimeout as delay } from 'node:timers/promises';
import type { PipelineProgress, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { PipelineHandle } from '@avatar-pipeline/client/client/pipelines';
import type { ProgressView } from './progress-view';
import { settledProgress } from './settled-progress';

export interface ProgressWatch {
  /**
   * Stops polling and draws the final state: from `result` when given, else from one last
   * progress query (if it answers within a moment).
   */
  stop(result?: PipelineResult): Promise<void>;
}

/** How long the last look at the progress may take before the view closes without it. */
const FINAL_QUERY_MS = 2_000;

/**
 * Polls the pipeline's progress query into `view` until stopped. A failing query (no worker
 * yet, a restart) is skipped; a slow one never holds up stop().
 */
export function watchProgress(handle: Pick<PipelineHandle, 'progress'>, view: ProgressView): ProgressWatch {
  const abort = new AbortController();
  const aborted = new Promise<undefined>((resolve) =>
    abort.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
  );
  let last: PipelineProgress | undefined;
  const query = (): Promise<PipelineProgress | undefined> => handle.progress().catch(() => undefined);
  const loop = (async () => {
    while (!abort.signal.aborted) {
      const progress = await Promise.race([query(), aborted]);
      if (abort.signal.aborted) break;
      last = progress ?? last;
      view.update(progress);
      await delay(view.intervalMs, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  })();
  return {
    stop: async (result) => {
      abort.abort();
      await loop;
      const final = await Promise.race([query(), delay(FINAL_QUERY_MS, undefined, { ref: false })]);
      view.update(result ? settledProgress(final ?? last, result) : final);
      view.finish();
    },
  };
}

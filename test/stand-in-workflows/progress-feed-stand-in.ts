/**
 * A stand-in pipeline whose progress moves only when the test says so (signal `advance`), for
 * tests of the progress feed and the event stream. It registers under the pipeline's workflow
 * type, so the API treats it as a pipeline.
 */
import { ApplicationFailure, condition, defineSignal, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PipelineProgress, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { ProgressLog } from '../../workflows/progress-log';

export const advanceSignal = defineSignal<[{ fail?: boolean }]>('advance');

export async function avatarPipeline(input: { steps: number; capacity?: number }): Promise<PipelineResult> {
  const { workflowId } = workflowInfo();
  const log = new ProgressLog<PipelineProgress>(input.capacity);
  log.install();
  let advanced = 0;
  let fail = false;
  setHandler(advanceSignal, (how) => {
    advanced += 1;
    fail ||= how.fail === true;
  });
  const progress = (done: number): PipelineProgress => ({
    workflowId,
    stage: done < input.steps ? 'uploading-selfies' : 'done',
    uploads: { done, total: input.steps },
    training: { polls: 0 },
    styles: [],
  });
  log.record(progress(0));
  for (let step = 1; step <= input.steps; step++) {
    await condition(() => advanced >= step);
    if (fail) throw ApplicationFailure.nonRetryable(`step ${step} failed`, 'StandInFailure');
    log.record(progress(step));
  }
  return { workflowId, modelId: 1, status: 'DONE', generations: [] };
}

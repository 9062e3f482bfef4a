import { sleep } from '@temporalio/workflow';
import type { Gender } from '@avatar-pipeline/client/provider/request-schemas';
import { obtainModel } from '../../workflows/obtain-model';

export { providerOrderClaim } from '../../workflows/obtain-model';

export interface ObtainModelInput {
  styles: number[];
  gender: Gender;
  /** The queue the provider activities run on (the test's one queue). */
  taskQueue: string;
  /** A timer before the first create, so a seed decides the order pipelines start in. */
  startAfterMs?: number;
}

/** Only the model step of a pipeline: the part where same-shape pipelines race for models. */
export async function obtainModelWorkflow(input: ObtainModelInput): Promise<number> {
  if (input.startAfterMs) await sleep(input.startAfterMs);
  return obtainModel({ styles: input.styles, gender: input.gender }, { taskQueue: input.taskQueue });
}

import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { GenerationResult, PipelineResult } from '../contracts/pipeline-state';
import { RUN_WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { FAILURE_TYPES } from '../contracts/failure-types';
import { InputError } from '../errors';
import { runOfTenant } from './tenant-runs';

/**
 * The one id of the retry of `styles` of a run: named after the run (so it is of the same tenant,
 * and the two are found together) and the styles it generates again, so asking for the same retry
 * again, from any surface and with any request id, finds the run the first request started.
 */
export function retryWorkflowId(retriedId: string, styles: readonly number[]): string {
  return `${retriedId}/retry-${[...styles].sort((a, b) => a - b).join('-')}`;
}

/** The styles a retry of an ended run generates again: those that did not end DONE, in the run's order. */
export function stylesToRetry(
  generations: readonly Pick<GenerationResult, 'styleId' | 'status'>[],
): number[] {
  return generations.filter((g) => g.status !== 'DONE').map((g) => g.styleId);
}

/**
 * The retry of an ended run's styles that did not end DONE, once one was started (by any surface):
 * its id and status. undefined when the run has nothing to retry or nobody retried it yet.
 */
export async function existingRetry(
  client: Client,
  retriedId: string,
  generations: readonly Pick<GenerationResult, 'styleId' | 'status'>[],
): Promise<{ workflowId: string; status: WorkflowExecutionStatusName } | undefined> {
  const styles = stylesToRetry(generations);
  if (styles.length === 0) return undefined;
  const workflowId = retryWorkflowId(retriedId, styles);
  try {
    return { workflowId, status: (await client.workflow.getHandle(workflowId).describe()).status.name };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** What a retry generates again, and what it keeps, under the model the first run trained. */
export interface RetryPlan {
  retriedId: string;
  modelId: number;
  subjectId?: string;
  /** Styles that did not end DONE, in the order the run listed them. */
  styles: number[];
  /** Styles that ended DONE, with their avatars: kept as they are. */
  kept: GenerationResult[];
  /** The run was held for review: its retry is too (review's default deadline and reminders). */
  reviewed: boolean;
}

/** The run cannot be retried as it stands (still running, nothing failed, failed in training, …). */
export class RetryRefusedError extends InputError {
  constructor(
    readonly workflowId: string,
    readonly reason: string,
    /** true when no run has this id. */
    readonly notFound = false,
  ) {
    super([{ path: 'workflowId', message: reason }]);
  }
}

/**
 * Reads how a pipeline (or generation run, or earlier retry) ended and plans its retry: every
 * style that did not end DONE is generated again under the same model. Only runs that got as far
 * as generating can be retried: a PARTIAL result, or a failure because no style succeeded.
 */
export async function planRetry(client: Client, tenant: string, workflowId: string): Promise<RetryPlan> {
  const handle = client.workflow.getHandle(workflowId);
  // A workflow that is not a run (a campaign, a claim, a callback delivery) or is another tenant's
  // is answered exactly as an id nobody used: otherwise the answer would tell which ids exist.
  const unknown = () => new RetryRefusedError(workflowId, `no pipeline with id ${workflowId}`, true);
  const description = await runOfTenant(client, tenant, workflowId);
  if (!description || !RUN_WORKFLOW_TYPES.has(description.type)) throw unknown();
  const status = description.status.name;
  if (status === 'RUNNING') {
    throw new RetryRefusedError(workflowId, 'is still running: retry it once it has ended');
  }
  let ended: Pick<PipelineResult, 'modelId' | 'generations' | 'subjectId' | 'review'>;
  try {
    ended = (await handle.result()) as PipelineResult;
  } catch (err) {
    ended = generationsOfFailure(workflowId, err);
  }
  if (!Array.isArray(ended.generations) || typeof ended.modelId !== 'number') {
    throw new RetryRefusedError(workflowId, 'is not a run that generates avatars');
  }
  const kept = ended.generations.filter((g) => g.status === 'DONE');
  const styles = stylesToRetry(ended.generations);
  if (styles.length === 0)
    throw new RetryRefusedError(workflowId, 'every style ended DONE: nothing to retry');
  return {
    retriedId: workflowId,
    modelId: ended.modelId,
    ...(ended.subjectId ? { subjectId: ended.subjectId } : {}),
    styles,
    kept,
    reviewed: ended.review !== undefined,
  };
}

/** A run in which no style succeeded fails with its model and styles as details; any other failure is before or beyond that. */
export function generationsOfNoStyleSucceeded(
  err: WorkflowFailedError,
): Pick<PipelineResult, 'modelId' | 'generations'> | undefined {
  const root = err.cause;
  if (root instanceof ApplicationFailure && root.type === FAILURE_TYPES.noStyleSucceeded) {
    const details = root.details?.[0] as { modelId?: unknown; generations?: unknown } | undefined;
    if (details && typeof details.modelId === 'number' && Array.isArray(details.generations)) {
      return { modelId: details.modelId, generations: details.generations as GenerationResult[] };
    }
  }
  return undefined;
}

function generationsOfFailure(
  workflowId: string,
  err: unknown,
): Pick<PipelineResult, 'modelId' | 'generations'> {
  if (!(err instanceof WorkflowFailedError)) throw err;
  const generations = generationsOfNoStyleSucceeded(err);
  if (generations) return generations;
  const root = err.cause;
  const message = root instanceof Error ? root.message : String(root);
  throw new RetryRefusedError(
    workflowId,
    `ended before any style could be retried (${message}): start a new pipeline`,
  );
}

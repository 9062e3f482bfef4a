import { deliveryWorkflowId } from '@avatar-pipeline/client/contracts/webhook-delivery';
import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TrainingResult } from '@avatar-pipeline/client/contracts/model-runs';
import type { PipelineProgress, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { progressQuery, RUN_WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { existingRetry, generationsOfNoStyleSucceeded } from '@avatar-pipeline/client/client/retry-plan';
import { runOfTenant } from '@avatar-pipeline/client/client/tenant-runs';
import { ApiError } from './api-error';
import type { PipelineLinks } from './links';
import type { PipelineState, PipelineStatus } from './response-schemas';

/** How long a progress query may wait for a worker: GET stays quick when no worker is running. */
const QUERY_DEADLINE_MS = 3_000;

const STATES: Partial<Record<WorkflowExecutionStatusName, PipelineState>> = {
  RUNNING: 'running',
  CONTINUED_AS_NEW: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
};

/**
 * Describes a run of the caller's tenant, or answers 404 for an unknown id, another tenant's run
 * or a workflow that is not a run: the same 404 each time, so the answer says nothing of others' ids.
 */
export async function describePipeline(
  client: Client,
  tenant: string,
  workflowId: string,
): Promise<WorkflowExecutionDescription> {
  const description = await runOfTenant(client, tenant, workflowId);
  if (description && RUN_WORKFLOW_TYPES.has(description.type)) return description;
  throw unknownPipeline(workflowId);
}

/** The answer to an id that names no pipeline (of the caller's). */
export const unknownPipeline = (workflowId: string): ApiError =>
  new ApiError(404, `No pipeline ${workflowId}`, []);

export function stateOf(description: WorkflowExecutionDescription): PipelineState {
  return stateOfStatus(description.status.name);
}

export function stateOfStatus(status: WorkflowExecutionStatusName): PipelineState {
  return STATES[status] ?? 'running';
}

/** State from Temporal's description, live progress from the query, and the outcome once it has ended. */
export async function pipelineStatus(
  client: Client,
  tenant: string,
  workflowId: string,
  links: PipelineLinks,
): Promise<PipelineStatus> {
  const description = await describePipeline(client, tenant, workflowId);
  const state = stateOf(description);
  const handle = client.workflow.getHandle(workflowId, description.runId);
  const [progress, outcome, callback] = await Promise.all([
    client
      .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(progressQuery))
      .catch((): PipelineProgress | undefined => undefined),
    state === 'running' ? Promise.resolve<Outcome>({}) : outcomeOf(client, workflowId, description.runId),
    state === 'running' ? Promise.resolve(undefined) : callbackState(client, workflowId),
  ]);
  const retry = outcome.generations && (await existingRetry(client, workflowId, outcome.generations));
  return {
    workflowId,
    runId: description.runId,
    // A run waiting for a person says so: it is open, but nothing moves until decisions come.
    state: state === 'running' && progress?.stage === 'awaiting-review' ? 'awaiting-review' : state,
    startedAt: description.startTime.toISOString(),
    ...(description.closeTime ? { closedAt: description.closeTime.toISOString() } : {}),
    ...(progress ? { progress } : {}),
    ...(outcome.result ? { result: outcome.result } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(callback ? { callback: { state: callback } } : {}),
    ...(retry ? { retry: { workflowId: retry.workflowId, state: stateOfStatus(retry.status) } } : {}),
    links,
  };
}

/** How the run ended, and the styles it generated (which a retry would read) when it got that far. */
interface Outcome {
  result?: PipelineResult | TrainingResult;
  error?: { message: string; type?: string };
  generations?: PipelineResult['generations'];
}

async function outcomeOf(client: Client, workflowId: string, runId: string): Promise<Outcome> {
  try {
    const result: PipelineResult | TrainingResult = await client.workflow
      .getHandle(workflowId, runId)
      .result();
    return { result, ...('generations' in result ? { generations: result.generations } : {}) };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const root = rootCause(err);
    const noStyle = generationsOfNoStyleSucceeded(err);
    return {
      error: {
        message: root.message,
        ...(root instanceof ApplicationFailure && root.type ? { type: root.type } : {}),
      },
      ...(noStyle ? { generations: noStyle.generations } : {}),
    };
  }
}

/**
 * The run's webhook events are delivered by a workflow of their own (`<id>/webhooks`): pending while
 * it runs; none when the run had nowhere to send them (no callbackUrl, no endpoint of its tenant).
 */
async function callbackState(
  client: Client,
  workflowId: string,
): Promise<'pending' | 'delivered' | 'failed' | undefined> {
  try {
    const status = (await client.workflow.getHandle(deliveryWorkflowId(workflowId)).describe()).status.name;
    return status === 'RUNNING' ? 'pending' : status === 'COMPLETED' ? 'delivered' : 'failed';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

function rootCause(err: Error): Error {
  let current = err;
  for (let depth = 0; depth < 10 && current.cause instanceof Error; depth++) current = current.cause;
  return current;
}

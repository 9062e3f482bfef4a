import {
  isGrpcServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import type { Priority, TypedSearchAttributes } from '@temporalio/common';
import { encryptionCodecOf } from '../codec/client-data-converter';
import type { RunPlacement } from '../config/run-placement';
import { pipelineStartAttributes } from '../contracts/search-attributes';
import { tenantOfWorkflowId } from '../contracts/workflow-ids';
import { AvatarPipelineError } from '../errors';
import { maxRunCost } from '../contracts/usage';
import { BudgetExceededError, reserveRunBudget, settleRunBudget, type Pricing } from './budget';

/** What every start of a pipeline, training or generation takes: its placement, and how a repeated request is recognised. */
export interface StartOptions extends RunPlacement {
  /**
   * Whose run it is: the tenant of the API caller's credential, or the CLI's `--tenant`. It prefixes
   * the workflow id (tenantWorkflowId) and is kept in the AvatarTenant search attribute and the memo.
   * Default: DEFAULT_TENANT (`default`).
   */
  tenant?: string;
  /** The caller's id for this request: the same id again answers the run it started instead of starting a second. */
  requestId?: string;
  /**
   * A digest of what the request asked for, kept in the run's memo, so that a repeated request id can
   * be told apart from a reused one (the API refuses an Idempotency-Key sent with a different request).
   */
  requestFingerprint?: string;
  /**
   * What the tenant's work costs and may cost (its tenants-file entry): the start reserves its
   * run's most from the tenant's budget first, and is refused (BudgetExceededError) past a hard one.
   */
  pricing?: Pricing;
}

/**
 * One run to start: a pipeline, a training, a generation or a campaign (a campaign starts its
 * children itself, from its workflow).
 */
export interface RunStart {
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  /**
   * The workflow's one argument; its tenant, subjectId and campaignId also go to the memo and search
   * attributes, so the run, its listing and its children agree on whose it is.
   */
  input: object & { tenant: string; subjectId?: string | undefined; campaignId?: string | undefined };
  /** A digest of the request, kept in the memo, so a reused request id with another request can be refused. */
  requestFingerprint?: string | undefined;
  /** What the Temporal UI shows for the run from its start (payloads: encrypted with the rest). */
  summary: string;
  details?: string;
  /** More for listings to show, beside subject and campaign. */
  memo?: Record<string, unknown>;
  /**
   * The run's search attributes. By default a pipeline's: its stage, and the subject and campaign
   * of the input; a campaign gives its own (it is found by its CampaignId, and has no stage).
   */
  searchAttributes?: TypedSearchAttributes;
  /** How the server orders the run's tasks among others (a campaign's priority key); none by default. */
  priority?: Priority;
  /** The reservation the run needs first: its pricing, and what it may cost at most under it (maxRunCost). */
  reserve?: { pricing: Pricing; credits: number } | undefined;
}

export interface StartedRun {
  workflowId: string;
  /** false: a run with this workflow id existed (open or closed) and nothing was started. */
  created: boolean;
  /** When not created and a fingerprint was given: the earlier run's fingerprint, if it kept one. */
  existingFingerprint?: string;
}

/**
 * The one way this package starts a run. A workflow id is never reused, open (conflict) or closed
 * (reuse), so a repeated request id finds the run it started instead of starting another, and says
 * so, which the API answers differently (202 vs 200); a campaign started again under its id attaches
 * to the one that answered. Every run carries the same memo (subject and campaign as given, for
 * listings) and, unless it gives its own, a pipeline's search attributes: SubjectId is the subject
 * id as is or, when the client encrypts payloads, a keyed hash of it, since search attributes are
 * not payloads and stay plaintext on the server.
 */
export async function startRunOnce(client: Client, start: RunStart): Promise<StartedRun> {
  const { tenant, subjectId, campaignId } = start.input;
  if (tenantOfWorkflowId(start.workflowId) !== tenant) {
    throw new Error(
      `workflow id "${start.workflowId}" is not one of tenant "${tenant}" (see tenantWorkflowId)`,
    );
  }
  const codec = encryptionCodecOf(client.options.loadedDataConverter);
  const subjectKey = subjectId && (codec ? codec.subjectToken(subjectId) : subjectId);
  const memo = {
    ...start.memo,
    tenant,
    ...(start.requestFingerprint ? { requestFingerprint: start.requestFingerprint } : {}),
    ...(subjectId ? { subjectId } : {}),
    ...(campaignId ? { campaignId } : {}),
  };
  const meter = { tenant, taskQueue: start.taskQueue };
  if (start.reserve) {
    await reserveRunBudget(client, meter, {
      runId: start.workflowId,
      credits: start.reserve.credits,
      campaignId,
      budget: start.reserve.pricing.budget,
    }).catch(async (err: unknown) => {
      // A repeated request for a run that exists is answered with that run, budget or not.
      if (!(err instanceof BudgetExceededError) || !(await runExists(client, start.workflowId))) throw err;
    });
  }
  const started = await startOnce(client, start, memo, subjectKey).catch(async (err: unknown) => {
    if (start.reserve) await settleRunBudget(client, tenant, start.workflowId);
    throw err;
  });
  // A repeated start of a run that has ended reserved again what it no longer needs.
  if (start.reserve && !started.created && (await runEnded(client, start.workflowId))) {
    await settleRunBudget(client, tenant, start.workflowId);
  }
  return started;
}

async function startOnce(
  client: Client,
  start: RunStart,
  memo: Record<string, unknown>,
  subjectKey: string | undefined,
): Promise<StartedRun> {
  const { tenant, campaignId } = start.input;
  try {
    await client.workflow.start(start.workflowType, {
      taskQueue: start.taskQueue,
      workflowId: start.workflowId,
      args: [start.input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      memo,
      typedSearchAttributes:
        start.searchAttributes ??
        pipelineStartAttributes({
          tenant,
          ...(subjectKey ? { subjectKey } : {}),
          ...(campaignId ? { campaignId } : {}),
        }),
      ...(start.priority ? { priority: start.priority } : {}),
      staticSummary: start.summary,
      ...(start.details ? { staticDetails: start.details } : {}),
    });
    return { workflowId: start.workflowId, created: true };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError))
      throw missingSearchAttributesError(client, err) ?? err;
    if (!start.requestFingerprint) return { workflowId: start.workflowId, created: false };
    const existing = await client.workflow.getHandle(start.workflowId).describe();
    const fingerprint = existing.memo?.requestFingerprint;
    return {
      workflowId: start.workflowId,
      created: false,
      ...(typeof fingerprint === 'string' ? { existingFingerprint: fingerprint } : {}),
    };
  }
}

/** The namespace lacks the pipeline's search attributes: `avatar-pipeline setup` fixes it (the API answers 503). */
export class NamespaceNotSetUpError extends AvatarPipelineError {
  constructor(namespace: string, details: string | undefined, options: { cause: unknown }) {
    super(
      `Temporal namespace "${namespace}" lacks the pipeline's search attributes (${details}): run \`avatar-pipeline setup\` once against it`,
      options,
    );
  }
}

/**
 * A namespace without the pipeline's search attributes refuses the start; say how to fix it.
 * Returns undefined for any other error.
 */
export function missingSearchAttributesError(
  client: Client,
  err: unknown,
): NamespaceNotSetUpError | undefined {
  const cause = err instanceof Error && isGrpcServiceError(err.cause) ? err.cause : err;
  if (
    !isGrpcServiceError(cause) ||
    !/search attribute .* is not defined|no mapping defined for search attribute/i.test(cause.details ?? '')
  ) {
    return undefined;
  }
  return new NamespaceNotSetUpError(client.options.namespace, cause.details, { cause: err });
}

/** The reservation of a run that trains (or not) and generates `styles` styles, when its tenant's work is priced. */
export function reservationOf(
  pricing: Pricing | undefined,
  run: { trains: boolean; styles: number },
): RunStart['reserve'] {
  return pricing ? { pricing, credits: maxRunCost(pricing.costs, run) } : undefined;
}

async function runEnded(client: Client, workflowId: string): Promise<boolean> {
  return (await client.workflow.getHandle(workflowId).describe()).status.name !== 'RUNNING';
}

/** Whether a run has this workflow id; an unanswered describe propagates. */
export async function runExists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

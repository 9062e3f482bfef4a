import { WorkflowNotFoundError, type Client, type WorkflowExecutionStatusName } from '@temporalio/client';
import type { PipelineResult } from '../contracts/pipeline-state';
import { ModelIdAttribute } from '../contracts/search-attributes';
import { RUN_WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { pipelinePrefix, subjectPrefix, uploadsPrefix } from '../storage/blob-keys';
import { deletePrefix, type BlobStore } from '../storage/blob-store';
import { eraseFromCampaigns } from '../campaign/erase-from-campaigns';
import { listPipelines, MAX_LIST_LIMIT } from '../client/list-pipelines';
import { getPipeline } from '../client/pipelines';
import { eraseWebhookDeliveries } from './erase-webhook-deliveries';
import { deleteExecution } from './delete-execution';
import { tenantClause } from '../client/tenant-runs';
import { DEFAULT_TENANT } from '../contracts/workflow-ids';

/**
 * What erasing a person did, and what it could not do. A repetition finds no runs left (they were
 * deleted); the provider ids are also in the audit line, for following up with the provider.
 */
export interface ForgetReport {
  /** The subject's key in the store: a hash, so the report can be logged and kept. */
  subject: string;
  /**
   * Objects of the subject left in the store, counted after the delete under every prefix erased
   * (the subject's, each run's uploads, each subjectless run's own): 0 once erased.
   */
  storedObjects: number;
  /**
   * The subject's pipeline runs, and the runs under the subject's models that named no subject
   * (their avatars are of the same face), now deleted; open ones were cancelled first so that none
   * writes again afterwards.
   */
  runs: Array<{ workflowId: string; status: WorkflowExecutionStatusName }>;
  /**
   * The tenant's webhook delivery-log records about the subject (events of their runs, or naming
   * them) now deleted, with their attempts: no redelivery finds them any more.
   */
  webhookDeliveries: number;
  /** Runs of redelivery workflows of those records deleted (their histories hold the events). */
  webhookRedeliveries: number;
  /** The provider offers no way to delete: its models (trained on the selfies) and orders remain. */
  providerHeld: { modelIds: number[]; orderIds: number[]; canDelete: false };
}

export interface ForgetSubjectOptions {
  /** Whose subject: only this tenant's runs, stored objects and campaign lines are erased. Default: `default`. */
  tenant?: string;
  /** How long to wait for each cancelled run to close before deleting. Default 60 s. */
  closeTimeoutMs?: number;
  /** Receives the audit line (no subject id, no personal data). */
  audit?: (entry: Record<string, unknown>) => void;
}

/**
 * Erases a person of one tenant (another tenant's subject of the same id is another person, left
 * whole): first from the tenant's campaigns (their stored manifest lines, and every open campaign
 * holding them is told, so none starts them afterwards; packages/client/src/campaign/erase-from-campaigns.ts); then
 * cancels their open runs (and waits for them to close, so no archive copy lands
 * after the delete), deletes their archived avatars (the subject's prefix) and their runs' uploaded
 * selfies, does the same for the runs under the subject's models that named no subject (their
 * avatars, kept under each run's own prefix, are of the subject's face), deletes the runs themselves from Temporal (with their children: claims, callback
 * deliveries), so no route answers their results or the provider's avatar URLs any more; deletes
 * the tenant's webhook delivery-log records about them and those records' redelivery workflows
 * (packages/client/src/erasure/erase-webhook-deliveries.ts), so no redelivery sends them again; and reports what
 * the provider still holds. Campaign summaries, results and progress leave them out.
 *
 * A campaign's own history is not deleted: it holds every other subject's outcome. It keeps the
 * manifest pages it read (the person's id and selfie references; encrypted with payload
 * encryption) until the namespace's retention removes it; no route of this package serves them.
 */
export async function forgetSubject(
  client: Client,
  store: BlobStore,
  subjectId: string,
  options: ForgetSubjectOptions = {},
): Promise<ForgetReport> {
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const prefix = subjectPrefix(tenant, subjectId);
  const subject = prefix.slice('subjects/'.length, -1);
  const campaigns = await eraseFromCampaigns(client, store, tenant, subjectId);
  const listed = await listPipelines(client, { tenant, subjectId, limit: MAX_LIST_LIMIT });
  const runs = [...listed, ...(await unlisted(client, campaigns.pipelineIds, listed))];
  const closeTimeoutMs = options.closeTimeoutMs ?? 60_000;
  const modelIds = new Set<number>();
  const orderIds = new Set<number>();
  const finalRuns: ForgetReport['runs'] = [];
  const close = async (run: RunToErase) => {
    const handle = getPipeline(client, run.workflowId);
    let status = run.status;
    if (status === 'RUNNING') {
      await handle.cancel();
      status = await waitForClose(() => handle.status(), closeTimeoutMs);
    }
    if (run.modelId !== undefined) modelIds.add(run.modelId);
    if (status === 'COMPLETED') {
      // A training run's result is its model alone.
      const result: Partial<PipelineResult> = await handle.result();
      if (result.modelId !== undefined) modelIds.add(result.modelId);
      for (const generation of result.generations ?? []) {
        if (generation.orderId !== undefined) orderIds.add(generation.orderId);
      }
    }
    finalRuns.push({ workflowId: run.workflowId, status });
  };
  for (const run of runs) await close(run);
  const subjectless = await subjectlessRunsOfModels(client, tenant, modelIds, runs);
  for (const run of subjectless) await close(run);
  await deleteRuns(client, [...runs, ...subjectless]);
  const webhooks = await eraseWebhookDeliveries(
    client,
    store,
    tenant,
    subjectId,
    new Set(finalRuns.map((run) => run.workflowId)),
  );
  // The subject's archived avatars, each run's uploaded selfies (kept under the run's id), and the
  // archived avatars of the subjectless runs (kept under their own ids).
  const prefixes = [
    prefix,
    ...finalRuns.map((run) => uploadsPrefix(run.workflowId)),
    ...subjectless.map((run) => pipelinePrefix(run.workflowId)),
  ];
  let deleted = 0;
  for (const each of prefixes) deleted += (await deletePrefix(store, each)).length;
  let remaining = 0;
  for (const each of prefixes) remaining += (await store.listKeys(each)).length;
  options.audit?.({
    event: 'subject-erased',
    tenant,
    subject,
    objectsDeleted: deleted,
    objectsRemaining: remaining,
    runs: finalRuns.length,
    manifestLines: campaigns.lines,
    campaignsTold: campaigns.campaignsTold,
    webhookDeliveries: webhooks.deliveries,
    webhookRedeliveries: webhooks.redeliveries,
    providerModelIds: [...modelIds].sort((a, b) => a - b),
    providerOrderIds: [...orderIds].sort((a, b) => a - b),
  });
  return {
    subject,
    storedObjects: remaining,
    runs: finalRuns.sort((a, b) => a.workflowId.localeCompare(b.workflowId)),
    webhookDeliveries: webhooks.deliveries,
    webhookRedeliveries: webhooks.redeliveries,
    providerHeld: {
      modelIds: [...modelIds].sort((a, b) => a - b),
      orderIds: [...orderIds].sort((a, b) => a - b),
      canDelete: false,
    },
  };
}

interface RunToErase {
  workflowId: string;
  runId: string;
  status: WorkflowExecutionStatusName;
  modelId?: number;
}

/** The campaigns' pipelines of the person that the SubjectId search did not list (yet): started moments ago. */
async function unlisted(client: Client, ids: string[], listed: RunToErase[]): Promise<RunToErase[]> {
  const runs: RunToErase[] = [];
  for (const workflowId of new Set(ids)) {
    if (listed.some((run) => run.workflowId === workflowId)) continue;
    const description = await client.workflow
      .getHandle(workflowId)
      .describe()
      .catch((err: unknown) => {
        // Never started: the campaign was told before their turn.
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    if (description) runs.push({ workflowId, runId: description.runId, status: description.status.name });
  }
  return runs;
}

/**
 * The tenant's runs under the subject's models that named no subject, beyond those already found:
 * generations started under the model without naming whose avatars they are.
 */
async function subjectlessRunsOfModels(
  client: Client,
  tenant: string,
  modelIds: ReadonlySet<number>,
  found: RunToErase[],
): Promise<RunToErase[]> {
  if (modelIds.size === 0) return [];
  const models = [...modelIds].map((id) => `${ModelIdAttribute.name} = ${id}`).join(' OR ');
  const types = [...RUN_WORKFLOW_TYPES].map((t) => `'${t}'`).join(', ');
  const query = `${tenantClause(tenant)} AND WorkflowType IN (${types}) AND (${models})`;
  const runs: RunToErase[] = [];
  for await (const info of client.workflow.list({ query })) {
    if (typeof info.memo?.subjectId === 'string') continue;
    if (found.some((run) => run.workflowId === info.workflowId)) continue;
    const modelId = info.typedSearchAttributes.get(ModelIdAttribute);
    runs.push({
      workflowId: info.workflowId,
      runId: info.runId,
      status: info.status.name,
      ...(modelId !== undefined ? { modelId } : {}),
    });
  }
  return runs;
}

/**
 * Deletes the closed runs and every child they started (claims, callback deliveries). Temporal
 * carries the deletion out in the background, within moments.
 */
async function deleteRuns(client: Client, runs: Array<{ workflowId: string; runId: string }>): Promise<void> {
  const executions: Array<{ workflowId: string; runId?: string }> = [];
  for (const run of runs) {
    executions.push(run);
    const history = await client.workflow
      .getHandle(run.workflowId, run.runId)
      .fetchHistory()
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return { events: [] };
        throw err;
      });
    for (const event of history.events ?? []) {
      const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child?.workflowId)
        executions.push({ workflowId: child.workflowId, ...(child.runId ? { runId: child.runId } : {}) });
    }
  }
  for (const execution of executions) await deleteExecution(client, execution);
}

async function waitForClose(
  status: () => Promise<WorkflowExecutionStatusName>,
  timeoutMs: number,
): Promise<WorkflowExecutionStatusName> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await status();
    if (current !== 'RUNNING' || Date.now() > deadline) return current;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

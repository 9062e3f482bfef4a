import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import type { PipelineResult } from '../contracts/pipeline-state';
import { deletePrefix, subjectPrefix, uploadsPrefix, type BlobStore } from '../storage';
import { listPipelines, MAX_LIST_LIMIT } from './list-pipelines';
import { getPipeline } from './pipelines';

/** What erasing a person did, and what it could not do. The same on every repetition. */
export interface ForgetReport {
  /** The subject's key in the store: a hash, so the report can be logged and kept. */
  subject: string;
  /** Objects of the subject left in the store: 0 once erased. */
  storedObjects: number;
  /** The subject's pipeline runs; open ones were cancelled first so that none writes again afterwards. */
  runs: Array<{ workflowId: string; status: WorkflowExecutionStatusName }>;
  /** The provider offers no way to delete: its models (trained on the selfies) and orders remain. */
  providerHeld: { modelIds: number[]; orderIds: number[]; canDelete: false };
}

export interface ForgetSubjectOptions {
  /** How long to wait for each cancelled run to close before deleting. Default 60 s. */
  closeTimeoutMs?: number;
  /** Receives the audit line (no subject id, no personal data). */
  audit?: (entry: Record<string, unknown>) => void;
}

/**
 * Erases a person: cancels their open runs (and waits for them to close, so no archive copy lands
 * after the delete), deletes their archived avatars (the subject's prefix) and their runs' uploaded
 * selfies, and reports what the provider still holds. Results of those runs stay in Temporal's
 * history, but their avatars are no longer linked: links are only made for objects that exist.
 */
export async function forgetSubject(
  client: Client,
  store: BlobStore,
  subjectId: string,
  options: ForgetSubjectOptions = {},
): Promise<ForgetReport> {
  const prefix = subjectPrefix(subjectId);
  const subject = prefix.slice('subjects/'.length, -1);
  const runs = await listPipelines(client, { subjectId, limit: MAX_LIST_LIMIT });
  const closeTimeoutMs = options.closeTimeoutMs ?? 60_000;
  const modelIds = new Set<number>();
  const orderIds = new Set<number>();
  const finalRuns: ForgetReport['runs'] = [];
  for (const run of runs) {
    const handle = getPipeline(client, run.workflowId);
    let status = run.status;
    if (status === 'RUNNING') {
      await handle.cancel();
      status = await waitForClose(() => handle.status(), closeTimeoutMs);
    }
    if (run.modelId !== undefined) modelIds.add(run.modelId);
    if (status === 'COMPLETED') {
      const result: PipelineResult = await handle.result();
      modelIds.add(result.modelId);
      for (const generation of result.generations) {
        if (generation.orderId !== undefined) orderIds.add(generation.orderId);
      }
    }
    finalRuns.push({ workflowId: run.workflowId, status });
  }
  // The subject's archived avatars, and each run's uploaded selfies (kept under the run's id).
  const prefixes = [prefix, ...finalRuns.map((run) => uploadsPrefix(run.workflowId))];
  let deleted = 0;
  for (const each of prefixes) deleted += (await deletePrefix(store, each)).length;
  let remaining = 0;
  for (const each of prefixes) remaining += (await store.list(each)).length;
  options.audit?.({
    event: 'subject-erased',
    subject,
    objectsDeleted: deleted,
    objectsRemaining: remaining,
    runs: finalRuns.length,
  });
  return {
    subject,
    storedObjects: remaining,
    runs: finalRuns.sort((a, b) => a.workflowId.localeCompare(b.workflowId)),
    providerHeld: {
      modelIds: [...modelIds].sort((a, b) => a - b),
      orderIds: [...orderIds].sort((a, b) => a - b),
      canDelete: false,
    },
  };
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

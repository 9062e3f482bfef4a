import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { deliveryWorkflowId, redeliveryWorkflowId } from '../contracts/webhook-delivery';
import type { WebhookEnvelope } from '../contracts/webhook-events';
import type { BlobStore } from '../storage/blob-store';
import { DeliveryLog } from '../webhooks/delivery-log';
import { deleteExecution } from './delete-execution';

export interface ErasedDeliveries {
  /** Delivery-log records removed (each an event to one endpoint, with its attempts). */
  deliveries: number;
  /** Runs of redelivery workflows of those deliveries deleted (running ones terminated). */
  redeliveries: number;
}

/**
 * Erases a subject from the tenant's webhooks: ends the delivery workflows of their runs (the
 * run's own child is deleted with it; a delivery workflow that continued as new lives on in a
 * later run), deletes every delivery-log record whose event is about one of the runs or names
 * the subject, and deletes the redelivery workflows of those records (their histories hold the
 * event), so no redelivery can find or send them afterwards.
 */
export async function eraseWebhookDeliveries(
  client: Client,
  store: BlobStore,
  tenant: string,
  subjectId: string,
  runIds: ReadonlySet<string>,
): Promise<ErasedDeliveries> {
  for (const runId of runIds) await deleteExecution(client, { workflowId: deliveryWorkflowId(runId) });
  // The retention plays no part in erasing.
  const log = new DeliveryLog(store, Number.POSITIVE_INFINITY);
  const erased = await log.erase(tenant, (event) => isAboutSubject(event, subjectId, runIds));
  let redeliveries = 0;
  for (const { endpointId, deliveryId } of erased) {
    const workflowId = redeliveryWorkflowId({ tenant, endpointId, deliveryId });
    // Every redelivery of the record is a run of the same workflow id, and each history holds the event.
    const runs = new Set<string>();
    for await (const info of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      runs.add(info.runId);
    }
    // The latest run too, should visibility not list it yet: terminated when it is still sending.
    const handle = client.workflow.getHandle(workflowId);
    const latest = await handle.describe().catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
    if (latest) {
      runs.add(latest.runId);
      if (latest.status.name === 'RUNNING') await handle.terminate('the subject was erased');
    }
    for (const runId of runs) await deleteExecution(client, { workflowId, runId });
    redeliveries += runs.size;
  }
  return { deliveries: erased.length, redeliveries };
}

/** The event is of one of the subject's runs, or its data names the subject. */
function isAboutSubject(event: WebhookEnvelope, subjectId: string, runIds: ReadonlySet<string>): boolean {
  const data = event.data as { workflowId?: unknown; subjectId?: unknown; result?: { subjectId?: unknown } };
  return (
    runIds.has(event.source) ||
    (typeof data.workflowId === 'string' && runIds.has(data.workflowId)) ||
    data.subjectId === subjectId ||
    data.result?.subjectId === subjectId
  );
}

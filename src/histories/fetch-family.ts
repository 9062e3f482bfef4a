import type { Client } from '@temporalio/client';
import type { History } from './history-json';

/**
 * The histories of a workflow and of every child it started (recursively: styles, claims), by
 * workflow id. A closed workflow's history is final, so fetch after the pipeline has ended.
 */
export async function fetchFamilyHistories(
  client: Client,
  workflowId: string,
): Promise<Map<string, History>> {
  const histories = new Map<string, History>();
  const pending = [workflowId];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (histories.has(id)) continue;
    const history = await client.workflow.getHandle(id).fetchHistory();
    histories.set(id, history);
    for (const event of history.events ?? []) {
      const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
      if (child) pending.push(child);
    }
  }
  return histories;
}

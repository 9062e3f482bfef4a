import type { Client } from '@temporalio/client';
import { ModelIdAttribute } from '../contracts/search-attributes';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { tenantClause } from './tenant-runs';

/**
 * The subject a model was trained for: the subject of the tenant's run (pipeline or training) that
 * trained it, undefined when that run named none or the model is none of the tenant's. A model's
 * avatars are its subject's, so a generation that names no subject is theirs too: erasing the
 * subject then erases them with the rest.
 */
export async function subjectOfModel(
  client: Client,
  tenant: string,
  modelId: number,
): Promise<string | undefined> {
  const trainers = [WORKFLOW_TYPES.pipeline, WORKFLOW_TYPES.training].map((t) => `'${t}'`).join(', ');
  const query = `${tenantClause(tenant)} AND ${ModelIdAttribute.name} = ${modelId} AND WorkflowType IN (${trainers})`;
  for await (const run of client.workflow.list({ query })) {
    const subjectId = run.memo?.subjectId;
    if (typeof subjectId === 'string' && subjectId !== '') return subjectId;
  }
  return undefined;
}

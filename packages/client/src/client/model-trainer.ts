import type { Client } from '@temporalio/client';
import type { FaceOwner } from '../contracts/quality-checks';
import { ModelIdAttribute } from '../contracts/search-attributes';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { tenantClause } from './tenant-runs';

/**
 * The tenant's run (pipeline or training) that trained a model, with its subject when it named one;
 * undefined when the model is none of the tenant's. A model's avatars are its subject's, so a
 * generation that names no subject is theirs too: erasing the subject then erases them with the
 * rest. The trainer also keeps the person's face that the model's avatars are checked against.
 */
export async function trainerOfModel(
  client: Client,
  tenant: string,
  modelId: number,
): Promise<FaceOwner | undefined> {
  const trainers = [WORKFLOW_TYPES.pipeline, WORKFLOW_TYPES.training].map((t) => `'${t}'`).join(', ');
  const query = `${tenantClause(tenant)} AND ${ModelIdAttribute.name} = ${modelId} AND WorkflowType IN (${trainers})`;
  let first: FaceOwner | undefined;
  for await (const run of client.workflow.list({ query })) {
    const subjectId = run.memo?.subjectId;
    if (typeof subjectId === 'string' && subjectId !== '') return { pipelineId: run.workflowId, subjectId };
    first ??= { pipelineId: run.workflowId };
  }
  return first;
}

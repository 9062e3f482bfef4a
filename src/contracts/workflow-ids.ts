/**
 * The workflow ids this package makes, and the prefixes callers may never use. Only a campaign id
 * is a whole workflow id chosen by a caller; every other caller-chosen part (Idempotency-Key,
 * --request-id, a subject id) is appended to one of these prefixes or to an id that already
 * exists. So refusing campaign ids that start with a reserved prefix keeps every internal id out
 * of callers' reach: none can be taken ahead of the workflow that needs it.
 */

/** Every pipeline a caller starts (API or CLI) has a workflow id with this prefix and its request id. */
export const PIPELINE_WORKFLOW_ID_PREFIX = 'avatar-pipeline-';
/** Likewise for training runs and generation runs. */
export const TRAINING_WORKFLOW_ID_PREFIX = 'avatar-model-';
export const GENERATION_WORKFLOW_ID_PREFIX = 'avatar-generation-';
/** Claims of provider orders (workflows/obtain-model.ts): one id per provider account and model. */
export const CLAIM_WORKFLOW_ID_PREFIX = 'provider-claim:';

export const RESERVED_WORKFLOW_ID_PREFIXES: readonly string[] = [
  PIPELINE_WORKFLOW_ID_PREFIX,
  TRAINING_WORKFLOW_ID_PREFIX,
  GENERATION_WORKFLOW_ID_PREFIX,
  CLAIM_WORKFLOW_ID_PREFIX,
];

/** True when `id` starts with a prefix of internal ids (compared without case, to leave no near miss). */
export function hasReservedPrefix(id: string): boolean {
  const lower = id.toLowerCase();
  return RESERVED_WORKFLOW_ID_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** The claim of one provider model: `provider-claim:<provider scope>:model:<id>`. */
export function claimWorkflowId(providerScope: string, modelId: number): string {
  return `${CLAIM_WORKFLOW_ID_PREFIX}${providerScope}:model:${modelId}`;
}

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
/** A tenant's budget meter (contracts/budget-meter.ts). */
export const BUDGET_METER_WORKFLOW_ID_PREFIX = 'budget-meter:';

export const RESERVED_WORKFLOW_ID_PREFIXES: readonly string[] = [
  PIPELINE_WORKFLOW_ID_PREFIX,
  TRAINING_WORKFLOW_ID_PREFIX,
  GENERATION_WORKFLOW_ID_PREFIX,
  CLAIM_WORKFLOW_ID_PREFIX,
  BUDGET_METER_WORKFLOW_ID_PREFIX,
];

/** True when `id` starts with a prefix of internal ids (compared without case, to leave no near miss). */
export function hasReservedPrefix(id: string): boolean {
  const lower = id.toLowerCase();
  return RESERVED_WORKFLOW_ID_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * A tenant id: what `API_TOKENS` (`tenant:token`) and the tenants file name. It holds neither `.`
 * nor any character outside [a-z0-9-], which is what makes tenantWorkflowId injective.
 */
export const TENANT_ID_PATTERN = /^[a-z0-9-]{1,40}$/;

/** The tenant of runs started without one named: a bare API token, the CLI without `--tenant`. */
export const DEFAULT_TENANT = 'default';

/** Between the tenant and the rest of a workflow id: a character no tenant id holds, and safe in a URL path. */
const TENANT_SEPARATOR = '.';

/**
 * Every run of a tenant has the workflow id `<tenant>.<id>`, where `<id>` is the id the run had
 * before tenants (a reserved prefix and a request id, a campaign id, `<campaign>/<subject>`, …).
 * A tenant id holds no `.`, so the tenant is everything before the first `.`: two (tenant, id)
 * pairs never make one workflow id, whatever dashes either holds, and ids of one tenant keep the
 * reserved-prefix protection among themselves. Claim ids (`provider-claim:…`) are no tenant's:
 * their `:` comes before any `.`. Children named after their parent (`<pipeline>/callback`,
 * `<pipeline>/retry-<styles>`, `<campaign>/<subject>`) inherit the tenant. The id stays one URL
 * path segment, as the API's routes take it.
 */
export function tenantWorkflowId(tenant: string, id: string): string {
  if (!TENANT_ID_PATTERN.test(tenant))
    throw new Error(`invalid tenant id "${tenant}": expected [a-z0-9-]{1,40}`);
  return `${tenant}${TENANT_SEPARATOR}${id}`;
}

/** The tenant a workflow id of tenantWorkflowId names; undefined for an id of no tenant (a claim). */
export function tenantOfWorkflowId(workflowId: string): string | undefined {
  const end = workflowId.indexOf(TENANT_SEPARATOR);
  if (end < 0) return undefined;
  const tenant = workflowId.slice(0, end);
  return TENANT_ID_PATTERN.test(tenant) ? tenant : undefined;
}

/** The claim of one provider model: `provider-claim:<provider scope>:model:<id>`. */
export function claimWorkflowId(providerScope: string, modelId: number): string {
  return `${CLAIM_WORKFLOW_ID_PREFIX}${providerScope}:model:${modelId}`;
}

/**
 * How many ids one model's claim may take: its own, then `<id>/1`, `<id>/2`… past each one held by
 * a workflow that is no claim (one that squatted the id), so a squatter never makes a model unusable.
 * Every pipeline walks them in the same order, so one of them still owns the model alone.
 */
export const CLAIM_IDS_PER_ORDER = 4;

/** Id `n` of a claim's walk (0 is the claim id itself). */
export function claimIdAt(claimId: string, n: number): string {
  return n === 0 ? claimId : `${claimId}/${n}`;
}

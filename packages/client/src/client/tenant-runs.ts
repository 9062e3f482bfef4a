import {
  isGrpcServiceError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { ModelIdAttribute, TenantAttribute } from '../contracts/search-attributes';
import type { ProviderClient } from '../provider/client';
import type { Order } from '../provider/schemas';

/**
 * The one check of whose a run is. A run answers only to its own tenant: for any other, this
 * answers exactly what it answers for an id nobody used (undefined), so that every surface that
 * asks here (status, events, cancel, retry, campaigns) tells another tenant nothing, not even that
 * the id exists. Whose it is comes from its AvatarTenant search attribute, which the starter set
 * from the credential; a run without one (started outside this package) belongs to no tenant.
 */
export async function runOfTenant(
  client: Client,
  tenant: string,
  workflowId: string,
): Promise<WorkflowExecutionDescription | undefined> {
  let description: WorkflowExecutionDescription;
  try {
    description = await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || isGrpcNotFound(err)) return undefined;
    throw err;
  }
  return description.typedSearchAttributes.get(TenantAttribute) === tenant ? description : undefined;
}

/** The visibility clause that keeps a listing to one tenant's runs (tenant ids hold no quote). */
export function tenantClause(tenant: string): string {
  return `${TenantAttribute.name} = '${tenant}'`;
}

/**
 * The provider models a tenant's runs trained (or generated under): the provider account is
 * shared, so what a tenant may see of it is what its own runs recorded in ModelId.
 */
export async function tenantModelIds(client: Client, tenant: string): Promise<ReadonlySet<number>> {
  const ids = new Set<number>();
  const query = `${tenantClause(tenant)} AND ${ModelIdAttribute.name} > 0`;
  for await (const run of client.workflow.list({ query })) {
    const modelId = run.typedSearchAttributes.get(ModelIdAttribute);
    if (modelId !== undefined) ids.add(modelId);
  }
  return ids;
}

export type ProviderListReads = Pick<ProviderClient, 'listModels' | 'listOrders' | 'listModelOrders'>;

/**
 * The provider's lists as one tenant may read them: its own models and the orders under them, and
 * nothing else. Every read of models and orders on behalf of a tenant goes through these, so a
 * model of another tenant is unknown everywhere (listing, detail, orders, generation checks) in
 * the words the provider's own unknown ids get. The model ids are read once, when first needed.
 */
export function tenantProviderReads<P extends ProviderListReads>(
  provider: P,
  modelIds: () => Promise<ReadonlySet<number>>,
): P {
  let own: Promise<ReadonlySet<number>> | undefined;
  const owned = () => (own ??= modelIds());
  const visible = async (orders: Order[]) => {
    const ids = await owned();
    return orders.filter((o) => ids.has((o.parent ?? 0) === 0 ? o.id : (o.parent ?? 0)));
  };
  return new Proxy(provider, {
    get(target, property, receiver) {
      if (property === 'listModels') return async () => visible(await target.listModels());
      if (property === 'listOrders') return async () => visible(await target.listOrders());
      if (property === 'listModelOrders') {
        return async (modelId: number) => {
          if (!(await owned()).has(modelId)) return [];
          return target.listModelOrders(modelId);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function isGrpcNotFound(err: unknown): boolean {
  const NOT_FOUND = 5;
  return isGrpcServiceError(err) && err.code === NOT_FOUND;
}

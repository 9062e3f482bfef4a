import type { Client } from '@temporalio/client';
import { ModelNotFoundError } from '@avatar-pipeline/client/client/provider-catalog';
import {
  tenantModelIds,
  tenantProviderReads,
  type ProviderListReads,
} from '@avatar-pipeline/client/client/tenant-runs';
import { ProviderError } from '@avatar-pipeline/client/provider/errors';
import { ApiError } from './api-error';

/**
 * Runs a read against the provider, answering 404 for an id that names no model and 502 when the
 * provider fails (its message is passed on; the API key never is, it is not part of any message).
 */
export async function readFromProvider<T>(read: () => Promise<T>, notFoundPath: string): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ModelNotFoundError) {
      throw new ApiError(404, `No model ${err.modelId}: ${err.reason}`, [
        { path: notFoundPath, message: err.reason },
      ]);
    }
    if (err instanceof ProviderError) throw new ApiError(502, `The provider failed: ${err.message}`, []);
    throw err;
  }
}

/**
 * The provider as one tenant's request may read it: the account is shared, so its models and
 * orders are those of the tenant's own runs, and any other id is as unknown as one nobody made.
 */
export function providerOfTenant<P extends ProviderListReads>(
  ctx: { client: Client; provider: P },
  tenant: string,
): P {
  return tenantProviderReads(ctx.provider, () => tenantModelIds(ctx.client, tenant));
}

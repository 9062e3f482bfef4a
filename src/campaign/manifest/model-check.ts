import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { ProviderCatalog } from '@avatar-pipeline/client/client/provider-catalog';
import { modelIssues, REQUEST_FIELD_NAMES } from '@avatar-pipeline/client/client/generation-check';
import type { ModelCheck } from './validate-manifest';

/**
 * The same model checks as a single generation's, for the rows of a campaign manifest that name a
 * modelId, answered as the manifest's row problems. The provider's lists are read once for the
 * whole manifest; provider failures propagate (nothing starts without an answer).
 */
export function manifestModelCheck(
  provider: Pick<ProviderClient, 'listModels' | 'listOrders' | 'listModelOrders'>,
): ModelCheck {
  const lookup = new ProviderCatalog(provider).lookups();
  return async (target) =>
    modelIssues(await lookup(target.modelId), target, REQUEST_FIELD_NAMES).map((issue) => ({
      field: issue.path === REQUEST_FIELD_NAMES.gender ? 'gender' : 'modelId',
      message: issue.message,
    }));
}

import type { Client } from '@temporalio/client';
import type { AppConfig } from '../config/load-config';
import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { Style } from '@avatar-pipeline/client/provider/schemas';
import type { AccessTokenSigner } from './access-tokens';
import type { BlobLinkSigner, BlobStore } from '../storage';
import { pipelineLinks, type PipelineLinks } from './links';
import { offeredStylesCache } from '../operations/offered-styles';
import type { LiveLists } from './live-lists';
import type { ProgressHub } from './progress-hub';
import type { TenantCampaignSettings } from '@avatar-pipeline/client/contracts/campaign/campaign-share';

export type ApiConfig = Pick<
  AppConfig,
  | 'api'
  | 'temporal'
  | 'imageAccess'
  | 'callbacks'
  | 'placement'
  | 'campaigns'
  | 'storage'
  | 'tenants'
  | 'costs'
>;

/** What the routes share: configuration, the Temporal client, the provider client and the blob store. */
export interface ApiContext {
  config: ApiConfig;
  client: Client;
  provider: Pick<ProviderClient, 'listStyles' | 'listModels' | 'listOrders' | 'listModelOrders'>;
  /** Where uploaded selfies are kept and avatars archived (STORAGE_URL, else BLOB_DIR). */
  store: BlobStore;
  /** Signs the API's own links to objects the store cannot presign. */
  linkSigner: BlobLinkSigner;
  /** Mints and verifies browser access tokens (API_ACCESS_TOKEN_SECRET). */
  accessTokens: AccessTokenSigner;
  links(workflowId: string): PipelineLinks;
  /** One watcher per run for every open event stream (GET …/events), with their caps. */
  progressHub: ProgressHub;
  /** The live lists (GET /v1/pipelines and /v1/campaigns as event streams): one reader per list and query. */
  liveLists: LiveLists;
  /** The tenants file's campaign settings of a tenant (fairness weight, priority ceiling), when it has any. */
  tenantCampaignSettings?: (tenant: string) => TenantCampaignSettings | undefined;
  /** The provider's styles (cached), or undefined while the provider cannot be asked. */
  offeredStyles(): Promise<Style[] | undefined>;
}

export function createApiContext(parts: Omit<ApiContext, 'links' | 'offeredStyles'>): ApiContext {
  const { namespace } = parts.config.temporal;
  const uiUrl = parts.config.api.temporalUiUrl;
  return {
    ...parts,
    links: (id) => pipelineLinks(id, { namespace, ...(uiUrl ? { uiUrl } : {}) }),
    offeredStyles: offeredStylesCache(parts.provider),
  };
}

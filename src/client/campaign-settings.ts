import { parseEnv } from '../config/parse-env';
import { resolve } from 'node:path';
import type { ImageAccessPolicy } from '../images/image-access';
import { defaultProviderTaskQueue } from '../config/provider-task-queue';
import { temporalConfigOf, type TemporalConfig } from './pipeline-client';

/** What starting and watching campaigns needs from the environment; no provider settings. */
export interface CampaignSettings {
  temporal: TemporalConfig;
  /** PROVIDER_TASK_QUEUE, default `<TEMPORAL_TASK_QUEUE>-provider`. */
  providerTaskQueue: string;
  /** CAMPAIGN_DIR (absolute). */
  manifestDir: string;
  /** CAMPAIGN_MAX_IN_FLIGHT. */
  defaultMaxInFlight: number;
  /** IMAGE_ROOTS and IMAGE_URL_HOSTS, so selfies the workers would refuse are refused up front. */
  imageAccess: ImageAccessPolicy;
}

export function loadCampaignSettings(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): CampaignSettings {
  const e = parseEnv(env);
  return {
    temporal: temporalConfigOf(e, cwd),
    providerTaskQueue: e.PROVIDER_TASK_QUEUE ?? defaultProviderTaskQueue(e.TEMPORAL_TASK_QUEUE),
    manifestDir: resolve(cwd, e.CAMPAIGN_DIR),
    defaultMaxInFlight: e.CAMPAIGN_MAX_IN_FLIGHT,
    imageAccess: {
      roots: (e.IMAGE_ROOTS ?? [cwd]).map((root) => resolve(cwd, root)),
      urlHosts: e.IMAGE_URL_HOSTS,
    },
  };
}

/**
 * A campaign's share of the task queues: the operator's settings, never a caller's. Campaign work
 * is dispatched with the tenant as its Temporal fairness key, weighted by the tenant's
 * fairnessWeight, at a priority no higher than the tenant's ceiling, so a tenant that splits its
 * work into many campaigns still holds one share, and interactive pipelines (priority 3) go first.
 */

/** Temporal priority of campaign work when the operator sets none; interactive pipelines use 3. */
export const DEFAULT_CAMPAIGN_PRIORITY = 4;
/** The weight of a tenant the operator gives none. */
export const DEFAULT_FAIRNESS_WEIGHT = 1;
export const FAIRNESS_WEIGHT_RANGE = { min: 0.01, max: 1000 } as const;

/** What the tenants file says about a tenant's campaigns (see tenantSettingsOf in src/config/tenants.ts). */
export interface TenantCampaignSettings {
  /** The tenant's share of the provider quota against other tenants. */
  fairnessWeight: number;
  /** Highest priority (lowest number, 1…5) the tenant's campaigns may get. */
  priorityCeiling: number;
}

/** An operator's own choice when starting a campaign directly (the CLI's --priority, --fairness-weight). */
export interface OperatorCampaignChoice {
  priorityKey?: number;
  fairnessWeight?: number;
}

/** What a campaign and its pipelines are dispatched with. */
export interface CampaignShare {
  /** The tenant: every campaign of one tenant shares one fairness key. */
  fairnessKey: string;
  fairnessWeight: number;
  priorityKey: number;
}

/**
 * The share of a tenant's campaign: the operator's choice, else the tenant's weight; the priority
 * asked (default 4) lowered to the tenant's ceiling when it asks for more.
 */
export function campaignShare(
  tenant: string,
  settings?: TenantCampaignSettings,
  choice: OperatorCampaignChoice = {},
): CampaignShare {
  const asked = choice.priorityKey ?? DEFAULT_CAMPAIGN_PRIORITY;
  return {
    fairnessKey: tenant,
    fairnessWeight: choice.fairnessWeight ?? settings?.fairnessWeight ?? DEFAULT_FAIRNESS_WEIGHT,
    priorityKey: Math.max(asked, settings?.priorityCeiling ?? 1),
  };
}

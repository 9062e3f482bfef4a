import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import type { Pricing } from '@avatar-pipeline/client/client/budget';
import { budgetSchema, costsSchema, type Costs } from '@avatar-pipeline/client/contracts/usage';

/** What a credential may do: start runs, read them, cancel or retry them, erase subjects, decide reviews. */
export const SCOPES = ['start', 'read', 'cancel', 'erase', 'review'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * The tenant of a bare `API_TOKENS` entry (one without `tenant:`), and a tenant id as API_TOKENS
 * and API_TENANTS_FILE name it: defined with the workflow ids they go into, whose form relies on a
 * tenant id never holding a "." (workflow-ids.ts).
 */
import { TENANT_ID_PATTERN as TENANT_ID } from '@avatar-pipeline/client/contracts/workflow-ids';
export { DEFAULT_TENANT } from '@avatar-pipeline/client/contracts/workflow-ids';
export { TENANT_ID };
export const TENANT_ID_RULE = 'a tenant id is 1-40 lowercase letters, digits or "-"';

/** The campaign priority a tenant's campaigns may reach when the file says nothing (Temporal: 1 is highest). */
export const DEFAULT_CAMPAIGN_PRIORITY_CEILING = 3;

const tenantSettingsSchema = z.strictObject({
  /** The tenant's share of the provider quota for campaign work, relative to the other tenants'. */
  fairnessWeight: z.number().positive('must be greater than 0').max(1000, 'must be at most 1000').default(1),
  /** The highest priority (lowest number) its campaigns may get. */
  campaignPriorityCeiling: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be 1-5')
    .max(5, 'must be 1-5')
    .default(DEFAULT_CAMPAIGN_PRIORITY_CEILING),
  /** API requests a minute for all of the tenant's tokens together; unset: API_RATE_LIMIT_PER_MINUTE per token. */
  requestsPerMinute: z.number().int('must be a whole number').positive('must be greater than 0').optional(),
  /** What the tenant's API tokens may do. */
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, 'must name at least one scope (start, read, cancel, erase, review)')
    .default([...SCOPES]),
  /** What the tenant may spend on provider work, in the credits of the file's `costs`. */
  budget: budgetSchema.optional(),
});

/** The tenants file (API_TENANTS_FILE), YAML or JSON: `tenants: { <id>: { …settings } }`. */
export const tenantsFileSchema = z
  .strictObject({
    /** What provider work costs, in credits: with it, every order is metered per tenant. */
    costs: costsSchema.optional(),
    tenants: z.record(z.string().regex(TENANT_ID, TENANT_ID_RULE), tenantSettingsSchema).default({}),
  })
  .superRefine((file, ctx) => {
    if (file.costs !== undefined) return;
    for (const [tenant, settings] of Object.entries(file.tenants)) {
      if (settings.budget === undefined) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['tenants', tenant, 'budget'],
        message: 'needs `costs` at the top of the file (credits per training and per generation)',
      });
    }
  });

/** The tenants file as read: per-tenant settings, and the prices of provider work if it gives them. */
export interface TenantsFile {
  tenants: TenantsConfig;
  costs?: Costs;
}

export type TenantSettings = z.output<typeof tenantSettingsSchema>;
/** Per-tenant settings by tenant id; a tenant the file does not name has the defaults. */
export type TenantsConfig = Readonly<Record<string, TenantSettings>>;

/** What a tenant the tenants file does not name (or every tenant, without a file) gets. */
export const DEFAULT_TENANT_SETTINGS: TenantSettings = Object.freeze(tenantSettingsSchema.parse({}));

/**
 * The settings of `tenant`: the tenants file's, else the defaults. Takes any configuration that may
 * hold the parsed file (AppConfig, the API's config), so workers and the API read the same values.
 */
export function tenantSettingsOf(config: { tenants?: TenantsConfig }, tenant: string): TenantSettings {
  return Object.hasOwn(config.tenants ?? {}, tenant) ? config.tenants![tenant]! : DEFAULT_TENANT_SETTINGS;
}

/** What the tenant's work costs and may cost, when the tenants file prices provider work; else undefined (not metered). */
export function pricingOf(
  config: { tenants?: TenantsConfig; costs?: Costs },
  tenant: string,
): Pricing | undefined {
  if (config.costs === undefined) return undefined;
  const { budget } = tenantSettingsOf(config, tenant);
  return { costs: config.costs, ...(budget !== undefined ? { budget } : {}) };
}

/** The scopes a tenant's API tokens hold. */
export function tenantScopes(config: { tenants?: TenantsConfig }, tenant: string): ReadonlySet<Scope> {
  return new Set(tenantSettingsOf(config, tenant).scopes);
}

/**
 * Reads and validates the tenants file; any problem (unreadable, not YAML/JSON, a field breaking its
 * schema) is a ConfigError naming API_TENANTS_FILE and the field's path. JSON is YAML, so one parser reads both.
 */
export function loadTenantsFile(path: string, cwd: string): TenantsFile {
  const variable = 'API_TENANTS_FILE';
  const absolute = resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError([{ variable, reason: `cannot read ${absolute} (${code})` }]);
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new ConfigError([{ variable, reason: `${absolute} is not YAML or JSON: ${reason}` }]);
  }
  const parsed = tenantsFileSchema.safeParse(document);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable,
        reason: `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(the document)'}: ${
          // A refused tenant id: its rule, rather than zod's "Invalid key in record".
          issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message
        }`,
      })),
    );
  }
  const { tenants, costs } = parsed.data;
  return { tenants, ...(costs !== undefined ? { costs } : {}) };
}

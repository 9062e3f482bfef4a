import type { Pricing } from '@avatar-pipeline/client/client/budget';
import { loadTenantsFile, pricingOf } from '../config/tenants';

/**
 * The tenant's pricing from API_TENANTS_FILE, as the API reads it: runs the CLI starts reserve
 * from the same budget as the API's. Undefined without the file or its `costs`.
 */
export function pricingFromEnv(tenant: string, env: NodeJS.ProcessEnv = process.env): Pricing | undefined {
  const file = env.API_TENANTS_FILE;
  return file ? pricingOf(loadTenantsFile(file, process.cwd()), tenant) : undefined;
}

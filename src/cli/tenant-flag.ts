import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_TENANT, TENANT_ID_PATTERN } from '@avatar-pipeline/client/contracts/workflow-ids';

/**
 * `--tenant <id>`: whose runs a command starts, lists or erases. The CLI talks to Temporal
 * directly, as the operator, so it may act for any tenant; the API takes the tenant from the
 * caller's credential instead.
 */
export function tenantOption(what: string): Option {
  return new Option('--tenant <id>', `the tenant whose ${what} (a-z, 0-9 and -, at most 40)`)
    .argParser(parseTenant)
    .default(DEFAULT_TENANT);
}

function parseTenant(value: string): string {
  if (!TENANT_ID_PATTERN.test(value)) {
    throw new InvalidArgumentError('must be 1 to 40 of a-z, 0-9 and - (a tenant id)');
  }
  return value;
}

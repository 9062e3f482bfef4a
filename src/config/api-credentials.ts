import { tokenProblems } from './bearer-token-rules';
import { DEFAULT_TENANT, TENANT_ID, TENANT_ID_RULE } from './tenants';

/** One API token and the tenant it belongs to. */
export interface ApiCredential {
  tenant: string;
  token: string;
}

/**
 * The credentials of API_TOKENS entries: `tenant:token` gives the token to that tenant, a bare token
 * belongs to the default tenant. Entries are checked by `credentialProblems` first.
 */
export function credentialsOf(entries: readonly string[]): ApiCredential[] {
  return entries.map((entry) => {
    const colon = entry.indexOf(':');
    return colon < 0
      ? { tenant: DEFAULT_TENANT, token: entry }
      : { tenant: entry.slice(0, colon), token: entry.slice(colon + 1) };
  });
}

/**
 * Why API_TOKENS entries are unfit (1-based position), or nothing when all are fit: an entry with an
 * empty tenant or token or more than one ":", a tenant id outside [a-z0-9-]{1,40}, a token listed
 * under two tenants (which tenant would it act for?), and the token rules (length, placeholder).
 */
export function credentialProblems(entries: readonly string[], placeholder?: string): string[] {
  const problems: string[] = [];
  const tenantOfToken = new Map<string, string>();
  const credentials = credentialsOf(entries);
  credentials.forEach(({ tenant, token }, i) => {
    const entry = entries[i]!;
    if (entry.split(':').length > 2 || entry.startsWith(':') || entry.endsWith(':')) {
      problems.push(`entry ${i + 1} is malformed: write "tenant:token" or a bare token (one ":" at most)`);
      return;
    }
    if (!TENANT_ID.test(tenant)) {
      problems.push(`entry ${i + 1} has a bad tenant id: ${TENANT_ID_RULE}`);
      return;
    }
    const earlier = tenantOfToken.get(token);
    if (earlier !== undefined && earlier !== tenant) {
      problems.push(
        `entry ${i + 1} lists a token that also belongs to tenant "${earlier}"; give each tenant its own`,
      );
    }
    tenantOfToken.set(token, earlier ?? tenant);
    // Numbered as the entry, so the message points at the right one.
    for (const problem of tokenProblems([token], placeholder))
      problems.push(problem.replace(/^token 1\b/, `token ${i + 1}`));
  });
  return problems;
}

/**
 * Who is calling the starter API: the tenant a credential belongs to and what it may do. Every
 * `/v1` route reads `request.caller`, set once by the auth layer; the tenant comes from the
 * credential and never from a request body.
 */
import { DEFAULT_TENANT, SCOPES, type Scope } from '../config/tenants';

// Defined with the tenants file that names them; the API's callers are described here.
export { DEFAULT_TENANT, SCOPES, type Scope };

export interface Caller {
  tenant: string;
  scopes: ReadonlySet<Scope>;
}

/** What a credential with no tenant settings holds: every scope, in the default tenant. */
export const DEFAULT_CALLER: Caller = Object.freeze({
  tenant: DEFAULT_TENANT,
  scopes: new Set<Scope>(SCOPES),
});

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth layer before any `/v1` handler runs. */
    caller: Caller;
  }
}

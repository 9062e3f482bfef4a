/**
 * Who is calling the starter API: the tenant a credential belongs to and what it may do. Every
 * `/v1` route reads `request.caller`, set once by the auth layer; the tenant comes from the
 * credential and never from a request body.
 */
import { DEFAULT_TENANT } from '../contracts/workflow-ids';

/** What a credential may do: start runs, read them, cancel or retry them, erase subjects. */
export const SCOPES = ['start', 'read', 'cancel', 'erase'] as const;
export type Scope = (typeof SCOPES)[number];

/** The tenant of a bare `API_TOKENS` entry (one without `tenant:`). */
export { DEFAULT_TENANT };

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

import { createHash } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  onRequestHookHandler,
  onSendHookHandler,
} from 'fastify';
import { z } from 'zod';
import type { ApiCredential } from '../config/api-credentials';
import { tenantScopes, tenantSettingsOf, type TenantsConfig } from '../config/tenants';
import { bearerTokenOf, tokenIndex, type AuthFailure } from '../http/bearer-auth';
import { covers, type AccessClaims, type AccessTokenSigner, type RunKind } from './access-tokens';
import { ApiError, errorBodySchema } from './api-error';
import { noRoute } from './error-handler';
import { auditIdsOf, auditLog } from './audit';
import type { Caller, Scope } from './caller';
import { unknownCampaign } from '../campaign/api/known-campaign';
import { ACCESS_TOKEN_SCHEME, BEARER_SCHEME } from './openapi';
import { unknownPipeline } from './pipeline-view';
import { routeAccessOf, type RouteAccess } from './route-access';

/** Who sent a request, as its credential says. */
export interface Identity {
  caller: Caller;
  /** The credential, as a digest (never the token): what per-token limits count by. */
  credentialKey: string;
  /**
   * The tenant's requestsPerMinute (its tokens, minted ones included, then share one bucket);
   * undefined: API_RATE_LIMIT_PER_MINUTE for each API token, and for all of the tenant's minted
   * access tokens together.
   */
  requestsPerMinute?: number;
  /**
   * The bucket the rate limit counts this request in. A minted access token never has one of its
   * own, so minting more tokens cannot raise what a tenant may send.
   */
  rateBucket: string;
  /** A browser access token's claims (read-only, one run). */
  access?: AccessClaims;
}

export interface CallerAuthOptions {
  credentials: readonly ApiCredential[];
  tenants: TenantsConfig | undefined;
  accessTokens: AccessTokenSigner;
  /** Sets `www-authenticate` and answers a refused request (401). */
  refuse(failure: AuthFailure, reply: Parameters<onRequestHookHandler>[1]): Error;
}

/** The answer a browser access token gets for a run it does not cover: exactly an unknown id's. */
const UNKNOWN_RUN: Record<RunKind, (id: string) => Error> = {
  pipeline: unknownPipeline,
  campaign: unknownCampaign,
};

/**
 * What a browser access token gets wherever it does not apply (another run, another route, after
 * it expired): the answer for something that does not exist, so the token tells nothing of what
 * else there is. On a run's route, an unknown run's answer; elsewhere, an unknown route's.
 */
function unknownToAccessToken(request: FastifyRequest, routeUrl: string): Error {
  const id = String((request.params as { id?: unknown }).id ?? '');
  if (routeUrl.startsWith('/v1/pipelines/:id')) return UNKNOWN_RUN.pipeline(id);
  if (routeUrl.startsWith('/v1/campaigns/:id')) return UNKNOWN_RUN.campaign(id);
  return noRoute(request.method, request.url);
}

const ACCESS_TOKEN_QUERY = 'access_token';
const digestOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** How a review link's decisions are named in answers and audit lines: its token's digest. */
export const reviewerOfAccessToken = (token: string): string => `link:${digestOf(token)}`;

/**
 * Identifies each request by its credential, once (the rate limit asks before the check does): an
 * API token (`Authorization: Bearer`, looked up in constant time over every token) is its tenant's
 * with the tenant's scopes; a browser access token (bearer or `?access_token=`) is its tenant's
 * with `read` only (a review link's with `review` as well). An API token is never taken from the query: URLs end up in logs and histories.
 */
export function callerIdentifier(options: Omit<CallerAuthOptions, 'refuse'>) {
  const indexOf = tokenIndex(options.credentials.map((c) => c.token));
  const known = new WeakMap<FastifyRequest, Identity | AuthFailure>();
  const apiIdentity = (credential: ApiCredential, token: string): Identity => {
    const { requestsPerMinute } = tenantSettingsOf(options, credential.tenant);
    const credentialKey = `token:${digestOf(token)}`;
    return {
      caller: { tenant: credential.tenant, scopes: tenantScopes(options, credential.tenant) },
      credentialKey,
      rateBucket: requestsPerMinute === undefined ? credentialKey : `tenant:${credential.tenant}`,
      ...(requestsPerMinute === undefined ? {} : { requestsPerMinute }),
    };
  };
  const accessIdentity = (token: string): Identity | undefined => {
    // An expired token is still identified: it is then answered like a run it does not cover.
    const claims = options.accessTokens.read(token);
    if (claims === undefined) return undefined;
    // Read-only (a review link may also decide), and no more than the tenant's own tokens may do now.
    const tenantMay = tenantScopes(options, claims.tenant);
    const granted: Scope[] = claims.review ? ['read', 'review'] : ['read'];
    const scopes = new Set<Scope>(granted.filter((scope) => tenantMay.has(scope)));
    const { requestsPerMinute } = tenantSettingsOf(options, claims.tenant);
    return {
      caller: { tenant: claims.tenant, scopes },
      credentialKey: claims.review ? reviewerOfAccessToken(token) : `access:${digestOf(token)}`,
      rateBucket:
        requestsPerMinute === undefined ? `access-tokens:${claims.tenant}` : `tenant:${claims.tenant}`,
      ...(requestsPerMinute === undefined ? {} : { requestsPerMinute }),
      access: claims,
    };
  };
  const identify = (request: FastifyRequest): Identity | AuthFailure => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const token = bearerTokenOf(authorization);
      if (token === undefined) return 'not-bearer';
      const index = indexOf(token);
      if (index >= 0) return apiIdentity(options.credentials[index]!, token);
      return accessIdentity(token) ?? 'rejected';
    }
    const query = (request.query ?? {}) as Record<string, unknown>;
    const fromQuery = query[ACCESS_TOKEN_QUERY];
    if (typeof fromQuery !== 'string') return fromQuery === undefined ? 'missing' : 'rejected';
    return accessIdentity(fromQuery) ?? 'rejected';
  };
  return (request: FastifyRequest): Identity | AuthFailure => {
    let identity = known.get(request);
    if (identity === undefined) {
      identity = identify(request);
      known.set(request, identity);
    }
    return identity;
  };
}

/**
 * Puts every `/v1` route added after it in `app` behind its entry in ROUTE_ACCESS: the credential
 * is checked (401), `request.caller` set, the scope required (403), a browser access token let in
 * only on its run's routes while it lasts (elsewhere and once expired: the answer for something
 * that does not exist), and audited
 * routes logged. The checks go after a route's own onRequest hooks (the rate limit counts guesses).
 */
export function installCallerAuth(
  app: FastifyInstance,
  identityOf: (request: FastifyRequest) => Identity | AuthFailure,
  refuse: CallerAuthOptions['refuse'],
): void {
  app.decorateRequest('caller', undefined as unknown as Caller);
  app.decorateRequest('credentialKey', '');
  app.addHook('onRoute', (route) => {
    const access = routeAccessOf(route.method, route.url);
    if (access === undefined)
      throw new Error(`${String(route.method)} ${route.url} has no entry in ROUTE_ACCESS (route-access.ts)`);
    route.schema = documented(route.schema, access);
    const check: onRequestHookHandler = async (request, reply) => {
      const identity = identityOf(request);
      if (typeof identity === 'string') throw refuse(identity, reply);
      if (identity.access !== undefined) {
        const runId = String((request.params as { id?: unknown }).id ?? '');
        const applies =
          access.runToken !== undefined &&
          (access.reviewLinkOnly !== true || identity.access.review) &&
          identity.access.expiresAtMs > Date.now() &&
          covers(identity.access, access.runToken, runId);
        if (!applies) throw unknownToAccessToken(request, route.url);
      }
      request.caller = identity.caller;
      request.credentialKey = identity.credentialKey;
      if (!identity.caller.scopes.has(access.scope))
        throw new ApiError(403, `This token lacks the "${access.scope}" scope this route needs`, [
          { path: 'scope', message: `"${access.scope}" is required` },
        ]);
    };
    route.onRequest = [route.onRequest ?? []].flat().concat(check);
    if (access.audit !== undefined) {
      const action = access.audit;
      const audit: onSendHookHandler = async (request, reply, payload) => {
        if (reply.statusCode >= 300) return payload;
        let answer: unknown;
        try {
          answer = typeof payload === 'string' ? JSON.parse(payload) : undefined;
        } catch {
          answer = undefined;
        }
        auditLog(request.log)(request.caller.tenant, action, auditIdsOf(action, request.params, answer));
        return payload;
      };
      route.onSend = [route.onSend ?? []].flat().concat(audit);
    }
  });
}

/** The route's scope in its description, its 403, and the access token where it is accepted. */
function documented(schema: FastifySchema | undefined, access: RouteAccess): FastifySchema | undefined {
  if (!schema) return schema;
  const docs = schema as FastifySchema & { description?: string; security?: unknown; hide?: boolean };
  if (docs.hide) return schema;
  const response = { ...(docs.response as Record<string, unknown> | undefined) };
  response[403] ??= errorBodySchema.describe(`The token lacks the "${access.scope}" scope`);
  const needs = access.runToken
    ? `Scope: \`${access.scope}\`. Also accepts ${access.reviewLinkOnly ? 'the token of a review link (POST …/review-links)' : 'a browser access token'} for this ${access.runToken} (bearer or \`?access_token=\`).`
    : `Scope: \`${access.scope}\`.`;
  const described = {
    ...docs,
    response,
    description: [docs.description, needs].filter(Boolean).join('\n\n'),
  };
  if (!access.runToken) return described;
  const tokenParam = z.object({
    [ACCESS_TOKEN_QUERY]: z
      .string()
      .optional()
      .describe(
        'A browser access token for this run (POST …/access-tokens), instead of the Authorization header',
      ),
  });
  const querystring =
    docs.querystring instanceof z.ZodObject ? docs.querystring.extend(tokenParam.shape) : tokenParam;
  return {
    ...described,
    querystring,
    security: [{ [BEARER_SCHEME]: [] }, { [ACCESS_TOKEN_SCHEME]: [] }],
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's credential as a digest (Identity.credentialKey); set with `caller`. */
    credentialKey: string;
  }
}

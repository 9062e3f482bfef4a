import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
// For the type of request.cookies, which @fastify/cookie adds.
import type {} from '@fastify/cookie';

/** `Authorization: Bearer <token>`: one token (RFC 6750's token68 has no spaces), any letter case of "Bearer". */
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of a bearer Authorization header; undefined for no header or another scheme. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  return BEARER.exec(authorization ?? '')?.[1];
}

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/**
 * Which of `tokens` a presented token is (its index), or -1. Tokens are compared as SHA-256 digests
 * (equal length, so timingSafeEqual applies) and every token is compared, so the time taken tells
 * nothing about which token or how much of it matched.
 */
export function tokenIndex(tokens: readonly string[]): (presented: string) => number {
  if (tokens.length === 0) throw new Error('bearer tokens are required');
  const accepted = tokens.map(digest);
  return (presented) => {
    const candidate = digest(presented);
    let found = -1;
    accepted.forEach((token, i) => {
      const equal = timingSafeEqual(candidate, token);
      found = equal ? i : found;
    });
    return found;
  };
}

/** Whether a presented token is one of `tokens`, compared as `tokenIndex` does. */
export function acceptedTokens(tokens: readonly string[]): (presented: string) => boolean {
  const indexOf = tokenIndex(tokens);
  return (presented) => indexOf(presented) >= 0;
}

/** Checks an Authorization header: whether it holds a bearer token at all, and whether it is one of ours. */
export function tokenCheck(tokens: readonly string[]) {
  const accepts = acceptedTokens(tokens);
  return (authorization: string | undefined): { presented: boolean; valid: boolean } => {
    const token = bearerTokenOf(authorization);
    return { presented: token !== undefined, valid: accepts(token ?? '') };
  };
}

/**
 * Why a request was refused: no credentials at all, an Authorization header of another scheme, or
 * a token (from the header or the cookie) that is not ours.
 */
export type AuthFailure = 'missing' | 'not-bearer' | 'rejected';

export interface BearerAuthOptions {
  tokens: readonly string[];
  /**
   * A cookie that may carry the token when no Authorization header comes (a browser's sign-in).
   * Read from `request.cookies`, so @fastify/cookie must be registered first; a value it could not
   * percent-decode is kept as sent, and so is refused as a wrong token.
   */
  cookie?: string;
  /** The error a refused request is answered with; it may also set headers or count the failure. */
  refuse(failure: AuthFailure, request: FastifyRequest, reply: FastifyReply): Error;
}

/**
 * Requires an accepted token on every route added after it in the scope it is registered in. The
 * check is appended to each route's own onRequest hooks, so it runs before any body is read, and
 * after hooks the route or an earlier plugin put there (a rate limit counts guesses too).
 */
export const bearerAuth = fp<BearerAuthOptions>(
  async (app, options) => {
    const accepts = acceptedTokens(options.tokens);
    const failureOf = (request: FastifyRequest): AuthFailure | undefined => {
      const authorization = request.headers.authorization;
      if (authorization !== undefined) {
        const token = bearerTokenOf(authorization);
        if (token === undefined) return 'not-bearer';
        return accepts(token) ? undefined : 'rejected';
      }
      const cookie = options.cookie === undefined ? undefined : request.cookies?.[options.cookie];
      if (cookie === undefined) return 'missing';
      return accepts(cookie) ? undefined : 'rejected';
    };
    const check: onRequestHookHandler = async (request, reply) => {
      const failure = failureOf(request);
      if (failure !== undefined) throw options.refuse(failure, request, reply);
    };
    app.addHook('onRoute', (route) => {
      route.onRequest = [route.onRequest ?? []].flat().concat(check);
    });
  },
  { fastify: '5.x', name: 'bearer-auth' },
);

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenProblems as apiTokenProblems } from '../config/bearer-token-rules';
import { ApiError } from './api-error';

/** The value .env.example ships: a copied example must not become a working credential. */
export const API_TOKEN_PLACEHOLDER = 'change-me-to-a-long-random-token';

/** Why each configured API token is unfit (1-based position), or nothing when all are fit. */
export const tokenProblems = (tokens: readonly string[]): string[] =>
  apiTokenProblems(tokens, API_TOKEN_PLACEHOLDER);

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/**
 * Checks an Authorization header against the configured tokens. Tokens are compared as SHA-256
 * digests (equal length, so timingSafeEqual applies) and every token is compared, so the time
 * taken tells nothing about which token or how much of it matched. The answer says whether a
 * bearer token was presented at all and whether it is one of ours.
 */
export function tokenCheck(tokens: readonly string[]) {
  if (tokens.length === 0) throw new Error('bearer tokens are required');
  const accepted = tokens.map(digest);
  return (authorization: string | undefined): { presented: boolean; valid: boolean } => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    const presented = digest(match?.[1] ?? '');
    let valid = false;
    for (const candidate of accepted) valid = timingSafeEqual(presented, candidate) || valid;
    return { presented: match !== null, valid: match !== null && valid };
  };
}

/**
 * Who a request's bearer token is, for per-token limits: a digest of its Authorization header, so
 * the token itself is never kept as a key. Meaningful only after the token was checked.
 */
export function bearerTokenKey(authorization: string | undefined): string {
  return `token:${createHash('sha256')
    .update(authorization ?? '')
    .digest('hex')}`;
}

/** An onRequest hook accepting `Authorization: Bearer <token>` for any configured token. */
export function bearerAuth(tokens: readonly string[]) {
  const check = tokenCheck(tokens);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { presented, valid } = check(request.headers.authorization);
    if (!valid) {
      reply.header('www-authenticate', 'Bearer realm="avatar-pipeline"');
      throw new ApiError(
        401,
        presented
          ? 'The bearer token is not valid'
          : 'A bearer token is required (Authorization: Bearer <token>)',
      );
    }
  };
}

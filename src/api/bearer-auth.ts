import { createHash } from 'node:crypto';
import { tokenProblems as apiTokenProblems } from '../config/bearer-token-rules';
import type { AuthFailure, BearerAuthOptions } from '../http/bearer-auth';
import { ApiError } from './api-error';

/** The value .env.example ships: a copied example must not become a working credential. */
export const API_TOKEN_PLACEHOLDER = 'change-me-to-a-long-random-token';

/** Why each configured API token is unfit (1-based position), or nothing when all are fit. */
export const tokenProblems = (tokens: readonly string[]): string[] =>
  apiTokenProblems(tokens, API_TOKEN_PLACEHOLDER);

export { tokenCheck } from '../http/bearer-auth';

/**
 * Who a request's bearer token is, for per-token limits: a digest of its Authorization header, so
 * the token itself is never kept as a key. Meaningful only after the token was checked.
 */
export function bearerTokenKey(authorization: string | undefined): string {
  return `token:${createHash('sha256')
    .update(authorization ?? '')
    .digest('hex')}`;
}

/** The API's bearer-auth settings: `Authorization: Bearer <token>` only, 401 for anything else. */
export function apiAuth(tokens: readonly string[]): BearerAuthOptions {
  return {
    tokens,
    refuse: (failure: AuthFailure, _request, reply) => {
      void reply.header('www-authenticate', 'Bearer realm="avatar-pipeline"');
      return new ApiError(
        401,
        failure === 'rejected'
          ? 'The bearer token is not valid'
          : 'A bearer token is required (Authorization: Bearer <token>)',
      );
    },
  };
}

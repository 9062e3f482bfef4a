import { credentialProblems } from '../config/api-credentials';
import type { AuthFailure } from '../http/bearer-auth';
import { ApiError } from './api-error';

/** The value .env.example ships: a copied example must not become a working credential. */
export const API_TOKEN_PLACEHOLDER = 'change-me-to-a-long-random-token';

/** Why each API_TOKENS entry is unfit (1-based position), or nothing when all are fit. */
export const apiTokenProblems = (entries: readonly string[]): string[] =>
  credentialProblems(entries, API_TOKEN_PLACEHOLDER);

export { tokenCheck } from '../http/bearer-auth';

/** The API's answer to a refused credential: 401 with `WWW-Authenticate: Bearer`. */
export function refuseCredential(
  failure: AuthFailure,
  reply: { header(name: string, value: string): unknown },
): Error {
  void reply.header('www-authenticate', 'Bearer realm="avatar-pipeline"');
  return new ApiError(
    401,
    failure === 'rejected'
      ? 'The bearer token is not valid'
      : 'A bearer token is required (Authorization: Bearer <token>)',
  );
}

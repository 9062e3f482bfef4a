import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error';

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/**
 * An onRequest hook accepting `Authorization: Bearer <token>` for any configured token. Tokens
 * are compared as SHA-256 digests (equal length, so timingSafeEqual applies) and every token is
 * compared, so the time taken tells nothing about which token or how much of it matched.
 */
export function bearerAuth(tokens: readonly string[]) {
  if (tokens.length === 0) throw new Error('bearerAuth needs at least one token');
  const accepted = tokens.map(digest);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '');
    const presented = digest(match?.[1] ?? '');
    let ok = false;
    for (const candidate of accepted) ok = timingSafeEqual(presented, candidate) || ok;
    if (!match || !ok) {
      reply.header('www-authenticate', 'Bearer realm="avatar-pipeline"');
      throw new ApiError(
        401,
        match
          ? 'The bearer token is not valid'
          : 'A bearer token is required (Authorization: Bearer <token>)',
      );
    }
  };
}

import type { FastifyInstance } from 'fastify';
import type { BlobLinkSigner, BlobStore } from '../../storage';

/**
 * Serves archived avatars of a filesystem store to whoever holds a link with a valid token (what
 * GET /v1/pipelines/{id} hands out), so an <img> can show them without the API's bearer token. An
 * expired, forged or erased link answers 404 and says nothing about why.
 */
export function registerArchiveRoute(app: FastifyInstance, store: BlobStore, signer: BlobLinkSigner): void {
  app.get<{ Params: { token: string } }>(
    '/archive/:token',
    { schema: { summary: 'An archived avatar, by a signed expiring link', tags: ['archive'] } },
    async (request, reply) => {
      const key = signer.verify(request.params.token);
      const found = key === undefined ? undefined : await store.get(key);
      if (found === undefined) return reply.code(404).send({ error: 'No such archived image', issues: [] });
      return reply
        .header('content-type', found.info.contentType)
        .header('content-length', String(found.info.bytes))
        .header('cache-control', 'private, max-age=300')
        .send(found.body);
    },
  );
}

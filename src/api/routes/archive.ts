import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_LINK_TOKEN_LENGTH, type BlobLinkSigner, type BlobStore } from '../../storage';
import { errorBodySchema } from '../api-error';

/**
 * Serves archived avatars of a filesystem store to whoever holds a link with a valid token (what
 * GET /v1/pipelines/{id} hands out), so an <img> can show them without the API's bearer token. An
 * expired, forged or erased link answers 404 and says nothing about why. The server accepts path
 * parameters as long as the longest token (routerOptions.maxParamLength in server.ts); a longer one
 * is no token this API made, and the router's refusal is answered 404 like any other.
 */
export function registerArchiveRoute(app: FastifyInstance, store: BlobStore, signer: BlobLinkSigner): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/archive/:token',
    schema: {
      summary: 'An archived avatar, by a signed expiring link',
      description:
        'The links come as `archivedUrl` in a pipeline\u2019s result when the store is a filesystem (an S3 store hands out presigned URLs instead). They need no bearer token and expire after 15 minutes.',
      tags: ['archive'],
      params: z.object({ token: z.string().min(1).max(MAX_LINK_TOKEN_LENGTH) }),
      response: {
        200: z.unknown().describe('The avatar (image/png or image/jpeg)'),
        404: errorBodySchema.describe(
          'No such image: the link is expired, forged (longer than any link this API makes, too), or its avatar was erased',
        ),
      },
    },
    // A token its schema refuses is no link this API made either: the same 404, nothing said about why.
    attachValidation: true,
    handler: async (request, reply) => {
      const key = request.validationError ? undefined : signer.verify(request.params.token);
      const found = key === undefined ? undefined : await store.get(key);
      if (found === undefined) return reply.code(404).send({ error: 'No such archived image', issues: [] });
      return reply
        .header('content-type', found.info.contentType)
        .header('content-length', String(found.info.bytes))
        .header('cache-control', 'private, max-age=300')
        .send(found.body);
    },
  });
}

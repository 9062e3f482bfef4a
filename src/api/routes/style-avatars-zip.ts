import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { providerIdSchema } from '../model-schemas';
import { BEARER_SCHEME } from '../openapi';
import { pipelineStatus } from '../pipeline-view';
import { pipelineIdParamsSchema } from '../response-schemas';
import { zipArchive, type ZipEntry } from '../zip-archive';

const paramsSchema = pipelineIdParamsSchema.extend({
  styleId: providerIdSchema.describe('The style, as the run\u2019s generations name it'),
});

interface ZippableAvatar {
  avatarId: number;
  archiveKey?: string;
  check?: { passed: boolean };
}

/**
 * GET /v1/pipelines/{id}/styles/{styleId}/avatars.zip: one style's archived avatars as one file,
 * so a person takes a style home in one download instead of one image at a time.
 */
export function registerStyleAvatarsZipRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/pipelines/:id/styles/:styleId/avatars.zip',
    schema: {
      summary: 'One style\u2019s archived avatars as a zip',
      description:
        'The archived copies of the style\u2019s avatars that passed their checks (or were not checked), from the result once the run has ended, or from its progress once the style is done. Entries are named `avatar-<avatarId>.<png|jpg>`. Avatars of an erased subject are no longer archived, and are left out.',
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: paramsSchema,
      response: {
        200: z.unknown().describe('The zip (application/zip)'),
        404: errorBodySchema.describe('No such pipeline, or no archived avatar of this style in it'),
      },
    },
    handler: async (request, reply) => {
      const { id, styleId } = request.params;
      const status = await pipelineStatus(ctx.client, request.caller.tenant, id, ctx.links(id));
      const entries: ZipEntry[] = [];
      for (const avatar of avatarsOfStyle(status, styleId)) {
        if (avatar.archiveKey === undefined || avatar.check?.passed === false) continue;
        const found = await ctx.store.get(avatar.archiveKey);
        if (found === undefined) continue;
        const extension = found.info.contentType === 'image/jpeg' ? 'jpg' : 'png';
        entries.push({ name: `avatar-${avatar.avatarId}.${extension}`, body: await bytesOf(found.body) });
      }
      if (entries.length === 0) {
        throw new ApiError(404, `No archived avatar of style ${styleId} in pipeline ${id}`, [
          { path: 'params.styleId', message: 'has no archived avatars in this pipeline' },
        ]);
      }
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="style-${styleId}-avatars.zip"`)
        .send(zipArchive(entries));
    },
  });
}

/** The style's avatars: the result's once there is one, else those its progress names once it is done. */
function avatarsOfStyle(
  status: {
    result?: object;
    progress?: { styles: Array<{ styleId: number; avatars?: ZippableAvatar[] }> };
  },
  styleId: number,
): ZippableAvatar[] {
  if (status.result && 'generations' in status.result) {
    const generations = status.result.generations as Array<{ styleId: number; avatars: ZippableAvatar[] }>;
    return generations.find((g) => g.styleId === styleId)?.avatars ?? [];
  }
  return status.progress?.styles.find((s) => s.styleId === styleId)?.avatars ?? [];
}

async function bytesOf(body: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

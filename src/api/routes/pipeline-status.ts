import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { linkArchivedAvatars, linkProgressAvatars, linksExpiry } from '../archive-links';
import { BEARER_SCHEME } from '../openapi';
import { pipelineStatus } from '../pipeline-view';
import { pipelineIdParamsSchema, pipelineStatusSchema, type PipelineStatus } from '../response-schemas';

export function registerPipelineStatusRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/pipelines/:id',
    schema: {
      summary: 'State, progress and outcome of a pipeline',
      description:
        'state comes from Temporal (running, completed, failed, cancelled, terminated, timed_out); progress from the pipeline\u2019s progress query; result when completed, error when it ended otherwise.',
      tags: ['pipelines'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: pipelineIdParamsSchema,
      response: {
        200: pipelineStatusSchema.describe('The pipeline'),
        401: errorBodySchema,
        404: errorBodySchema.describe('No pipeline with this id'),
      },
    },
    handler: async (request) => {
      const status = await pipelineStatus(
        ctx.client,
        request.caller.tenant,
        request.params.id,
        ctx.links(request.params.id),
      );
      const origin = archiveOrigin(ctx, request);
      const nowMs = Date.now();
      const ttl = ctx.config.api.archiveLinkTtlSeconds;
      const progress =
        status.progress &&
        (await linkProgressAvatars(status.progress, ctx.store, ctx.linkSigner, origin, nowMs, ttl));
      // A training run's result has no avatars to link.
      const result =
        status.result === undefined || !('generations' in status.result)
          ? status.result
          : await linkArchivedAvatars(status.result, ctx.store, ctx.linkSigner, origin, nowMs, ttl);
      const linked: PipelineStatus = {
        ...status,
        ...(progress ? { progress } : {}),
        ...(result ? { result } : {}),
      };
      const styleNames = namesOfStyles(linked, await ctx.offeredStyles());
      return {
        ...linked,
        ...(styleNames ? { styleNames } : {}),
        ...(hasArchivedLinks(linked) ? { linksExpireAt: linksExpiry(nowMs, ttl).toISOString() } : {}),
      };
    },
  });
}

/** Where archive links point: the configured public address, else the address this request came to (its Host header). */
export function archiveOrigin(ctx: ApiContext, request: FastifyRequest): string {
  return ctx.config.api.publicUrl ?? `${request.protocol}://${request.host}`;
}

/** The ids of the styles a run answers about, in progress or in its result. */
function styleIdsOf(status: PipelineStatus): Set<number> {
  return new Set([
    ...(status.progress?.styles ?? []).map((style) => style.styleId),
    ...(status.result && 'generations' in status.result ? status.result.generations : []).map(
      (generation) => generation.styleId,
    ),
  ]);
}

/** The run's styles by name, from the provider's cached list; undefined when it has none to name. */
function namesOfStyles(
  status: PipelineStatus,
  offered: ReadonlyArray<{ id: number; name: string }> | undefined,
): Array<{ id: number; name: string }> | undefined {
  const ids = styleIdsOf(status);
  const named = (offered ?? []).filter((style) => ids.has(style.id)).map(({ id, name }) => ({ id, name }));
  return named.length > 0 ? named : undefined;
}

/** Whether an answer hands out any archived-avatar link (and so says when they expire). */
function hasArchivedLinks(status: PipelineStatus): boolean {
  const avatars = [
    ...(status.progress?.styles ?? []).flatMap((style) => style.avatars ?? []),
    ...(status.result && 'generations' in status.result ? status.result.generations : []).flatMap(
      (generation) => generation.avatars,
    ),
  ];
  return avatars.some((avatar) => avatar.archivedUrl !== undefined);
}

import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  MAX_MANIFEST_BYTES,
  readManifest,
  validateManifestObjects,
  validateManifestRead,
  type ManifestIssue,
  type ManifestRead,
  type ManifestValidation,
} from '../manifest';
import { manifestModelCheck } from '../manifest/model-check';
import { getCampaign, startCampaign, type CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { runOfTenant } from '@avatar-pipeline/client/client/tenant-runs';
import {
  campaignIdSchema,
  type campaignOptionsSchema,
  OPERATOR_CAMPAIGN_OPTIONS,
  operatorSettingMessage,
  type OperatorCampaignOption,
  type FinalLedger,
  type CampaignProgress,
} from '@avatar-pipeline/client/contracts/campaign/campaign';
import { ApiError, errorBodySchema, MAX_LISTED_ISSUES } from '../../api/api-error';
import {
  campaignJsonStartSchema,
  campaignProgressSchema,
  campaignStartedSchema,
  campaignStatusSchema,
  campaignSummarySchema,
} from './schemas';
import type { ApiContext } from '../../api/api-context';
import { campaignShare } from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import {
  END_EVENT_ID,
  lastEventIdSchema,
  progressEventSchema,
  progressEventsDescription,
  progressEventsResponses,
  resumePoint,
  streamProgressEvents,
} from '../../api/event-stream';
import { BEARER_SCHEME } from '../../api/openapi';
import { providerOfTenant } from '../../api/provider-read';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { InputError } from '@avatar-pipeline/client/errors';
import { registerListCampaignsRoute } from './list-campaigns-route';
import { exportResults } from '../export-results';

const MANIFEST_FIELD = 'manifest';

/**
 * Any text is looked up (campaigns started before the id rules tightened keep their ids), and every
 * id that is not a campaign gets the one unknown-campaign answer, whatever holds it.
 */
const idParams = z.object({
  id: z.string().min(1).max(300).describe('The campaignId answered by POST /v1/campaigns'),
});

/** What each event's `data` holds, by event name; documented as the stream's schema. */
const campaignStreamEventSchema = progressEventSchema(
  'CampaignStreamEvent',
  campaignProgressSchema,
  campaignSummarySchema,
  'campaign',
);

/**
 * Campaign routes, registered inside the API's authenticated /v1 scope:
 * POST /campaigns (JSON subjects, or a CSV/JSONL manifest uploaded as multipart field `manifest`),
 * GET /campaigns (list-campaigns-route.ts),
 * GET /campaigns/:id, GET /campaigns/:id/summary, GET /campaigns/:id/events (Server-Sent Events),
 * POST /campaigns/:id/{pause,resume,cancel,retry}, GET /campaigns/:id/results.csv and results.jsonl.
 */
export function registerCampaignRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { placement, campaigns } = ctx.config;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const security = [{ [BEARER_SCHEME]: [] }];
  const links = (id: string) => ({
    self: `/v1/campaigns/${encodeURIComponent(id)}`,
    summary: `/v1/campaigns/${encodeURIComponent(id)}/summary`,
    resultsCsv: `/v1/campaigns/${encodeURIComponent(id)}/results.csv`,
    resultsJsonl: `/v1/campaigns/${encodeURIComponent(id)}/results.jsonl`,
    events: `/v1/campaigns/${encodeURIComponent(id)}/events`,
  });
  const handle = (id: string): CampaignHandle => getCampaign(ctx.client, id, { store: ctx.store });

  registerListCampaignsRoute(app, ctx);

  api.route({
    method: 'POST',
    url: '/campaigns',
    schema: {
      summary: 'Start a campaign',
      description: [
        'JSON `{subjects: [...], options?, campaignId?, skipInvalid?}`, or multipart/form-data with the manifest',
        '(CSV or JSONL) in the `manifest` field and optional fields campaignId, skipInvalid, maxInFlight, review.',
        'The manifest is validated as a whole first: 422 lists every bad row (path `subjects.<index>.<field>`',
        'for JSON, `manifest.<line>.<field>` for a file), and nothing starts unless it is clean or skipInvalid.',
        'Selfie paths must be absolute (under the workers’ IMAGE_ROOTS) or URLs on IMAGE_URL_HOSTS.',
      ].join(' '),
      tags: ['campaigns'],
      security,
      response: {
        202: campaignStartedSchema,
        400: errorBodySchema,
        401: errorBodySchema,
        413: errorBodySchema,
        415: errorBodySchema,
        422: errorBodySchema.describe('Invalid manifest or options, every problem listed'),
      },
    },
    handler: async (request, reply) => {
      const form = request.isMultipart() ? await readManifestForm(request) : readJsonBody(request.body);
      const knownStyles = await ctx.offeredStyles();
      const check = {
        imageAccess: ctx.config.imageAccess,
        ...(knownStyles ? { knownStyles } : {}),
        // Rows with a modelId: the same model checks as a generation start (one read of the lists).
        checkModel: manifestModelCheck(providerOfTenant(ctx, request.caller.tenant)),
      };
      const validation =
        form.kind === 'json'
          ? await validateManifestObjects(form.subjects, check)
          : await validateManifestRead(form.read, check);
      const prefix = form.kind === 'json' ? 'subjects' : MANIFEST_FIELD;
      if (validation.issues.length > 0 && (!form.skipInvalid || validation.subjects.length === 0)) {
        throw new ApiError(
          422,
          manifestMessage(validation),
          apiIssues(validation.issues, form.kind === 'json', prefix),
        );
      }
      try {
        const campaign = await startCampaign(ctx.client, validation.subjects, {
          ...placement,
          tenant: request.caller.tenant,
          store: ctx.store,
          defaultMaxInFlight: campaigns.maxInFlight,
          ...(form.options ? { options: form.options } : {}),
          ...(form.campaignId ? { campaignId: form.campaignId } : {}),
          // The share is the operator's: the caller's tenant with its settings, never the body's.
          share: campaignShare(request.caller.tenant, ctx.tenantCampaignSettings?.(request.caller.tenant)),
        });
        return await reply
          .code(202)
          .header('location', links(campaign.campaignId).self)
          .send({
            campaignId: campaign.campaignId,
            total: validation.subjects.length,
            skipped: validation.issues.slice(0, MAX_LISTED_ISSUES),
            skippedTotal: validation.issues.length,
            links: links(campaign.campaignId),
          });
      } catch (err) {
        if (err instanceof InputError) throw ApiError.fromInputError(err);
        if (err instanceof Error && err.name === 'CampaignManifestError')
          throw new ApiError(409, err.message, []);
        throw err;
      }
    },
  });

  api.route({
    method: 'GET',
    url: '/campaigns/:id',
    schema: {
      summary: 'State and progress of a campaign',
      description: 'Counts by state, in-flight subjects, throughput and estimated finish.',
      tags: ['campaigns'],
      security,
      params: idParams,
      response: { 200: campaignStatusSchema, 401: errorBodySchema, 404: errorBodySchema },
    },
    handler: async (request) => {
      const { id } = request.params;
      const campaign = handle(id);
      // One describe answers both: the tenant check and status, and the progress in the memo.
      const description = await knownCampaign(ctx.client, request.caller.tenant, id);
      const progress = await campaign.progress(description).catch(() => undefined);
      return {
        campaignId: id,
        status: description.status.name,
        ...(progress ? { progress } : {}),
        links: links(id),
      };
    },
  });

  api.route({
    method: 'GET',
    url: '/campaigns/:id/summary',
    schema: {
      summary: 'The campaign summary: every subject with its status, model, avatar count and error',
      description: 'While the campaign runs, the subjects finished so far (the others PENDING).',
      tags: ['campaigns'],
      security,
      params: idParams,
      response: { 200: campaignSummarySchema, 401: errorBodySchema, 404: errorBodySchema },
    },
    handler: async (request) => {
      const campaign = handle(request.params.id);
      await known(ctx.client, request.caller.tenant, request.params.id);
      return campaign.summary();
    },
  });

  api.route({
    method: 'GET',
    url: '/campaigns/:id/events',
    schema: {
      summary: 'Live progress of a campaign (Server-Sent Events)',
      description: progressEventsDescription('campaign', 'its summary'),
      tags: ['campaigns'],
      security,
      params: idParams,
      headers: z.looseObject({ 'last-event-id': lastEventIdSchema }),
      response: progressEventsResponses('campaign', campaignStreamEventSchema),
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const after = resumePoint(request);
      const campaign = handle(id);
      await known(ctx.client, request.caller.tenant, id);
      if (after === END_EVENT_ID) return reply.code(204).send(null);
      await streamProgressEvents<CampaignProgress, FinalLedger>(request, reply, ctx.progressHub, id, {
        afterVersion: after,
        // The campaign's result is compact; the stream ends with its summary, as GET …/summary answers it.
        presentResult: () => campaign.summary(),
        // Snapshots may predate an erasure: shown as GET /campaigns/{id} shows progress.
        presentProgress: (progress) => campaign.visibleProgress(progress),
      });
    },
  });

  for (const action of ['pause', 'resume', 'cancel'] as const) {
    api.route({
      method: 'POST',
      url: `/campaigns/:id/${action}`,
      schema: {
        summary:
          action === 'pause'
            ? 'Pause: start no more subjects (running ones finish)'
            : action === 'resume'
              ? 'Resume after a pause'
              : 'Cancel the running subjects and start no more; the campaign ends with its summary',
        tags: ['campaigns'],
        security,
        params: idParams,
        response: {
          200: campaignProgressSchema,
          401: errorBodySchema,
          404: errorBodySchema,
          409: errorBodySchema,
        },
      },
      handler: async (request) => {
        const { id } = request.params;
        const campaign = handle(id);
        const status = await known(ctx.client, request.caller.tenant, id);
        if (status !== 'RUNNING') throw new ApiError(409, `Campaign ${id} is not running (${status})`, []);
        return campaign[action]();
      },
    });
  }

  api.route({
    method: 'POST',
    url: '/campaigns/:id/retry',
    schema: {
      summary: 'Run failed or cancelled subjects again',
      description:
        'All of them, or the subjectIds given. While the campaign runs they join its queue; a campaign that ended restarts under its id for them.',
      tags: ['campaigns'],
      security,
      params: idParams,
      body: z.strictObject({ subjectIds: z.array(z.string().min(1)).min(1).optional() }).optional(),
      response: {
        202: z.object({ queued: z.number(), progress: campaignProgressSchema }),
        401: errorBodySchema,
        404: errorBodySchema,
        409: errorBodySchema,
        422: errorBodySchema,
      },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const campaign = handle(id);
      await known(ctx.client, request.caller.tenant, id);
      try {
        const report = await campaign.retry(request.body?.subjectIds);
        return await reply.code(202).send({ queued: report.queued.length, progress: report.progress });
      } catch (err) {
        if (err instanceof InputError) throw ApiError.fromInputError(err);
        if (err instanceof Error && /only a running or completed campaign/.test(err.message))
          throw new ApiError(409, err.message, []);
        throw err;
      }
    },
  });

  for (const format of ['csv', 'jsonl'] as const) {
    // Untyped route: the body is a stream (never serialized), which the typed reply would not accept.
    app.route<{ Params: z.infer<typeof idParams> }>({
      method: 'GET',
      url: `/campaigns/:id/results.${format}`,
      schema: {
        summary: `Every avatar so far as ${format.toUpperCase()}: subject, style, avatar id, image URL`,
        tags: ['campaigns'],
        security,
        params: idParams,
        response: { 401: errorBodySchema, 404: errorBodySchema },
      },
      handler: async (request, reply) => {
        const campaign = handle(request.params.id);
        await known(ctx.client, request.caller.tenant, request.params.id);
        return reply
          .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
          .header('content-disposition', `attachment; filename="${request.params.id}-results.${format}"`)
          .send(Readable.from(exportResults(campaign.resultRows(), format)));
      },
    });
  }
}

type ManifestForm = ({ kind: 'json'; subjects: unknown[] } | { kind: 'file'; read: ManifestRead }) & {
  campaignId?: string;
  skipInvalid?: boolean;
  options?: z.input<typeof campaignOptionsSchema>;
};

function readJsonBody(body: unknown): ManifestForm {
  if (body === undefined || body === null)
    throw new ApiError(415, 'Send application/json or multipart/form-data', []);
  const parsed = campaignJsonStartSchema.safeParse(body);
  if (!parsed.success) {
    throw ApiError.invalid(
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    );
  }
  const { subjects, campaignId, skipInvalid, options } = parsed.data;
  return {
    kind: 'json',
    subjects,
    ...(campaignId ? { campaignId } : {}),
    ...(skipInvalid ? { skipInvalid } : {}),
    ...(options ? { options } : {}),
  };
}

/**
 * The multipart form: the manifest file (CSV or JSONL) and a few text fields. The file is read as
 * it arrives and reading stops at the manifest's limits (rows, row size, unreadable rows); the rest
 * of it is drained unread, so the fields after it still arrive and nothing unbounded is kept.
 */
async function readManifestForm(request: FastifyRequest): Promise<ManifestForm> {
  let read: ManifestRead | undefined;
  const fields = new Map<string, string>();
  const parts = request.parts({
    limits: { files: 1, fileSize: MAX_MANIFEST_BYTES, fields: 8, fieldSize: 1024 },
  });
  for await (const part of parts as AsyncIterableIterator<Multipart>) {
    if (part.type === 'file') {
      if (part.fieldname !== MANIFEST_FIELD) {
        part.file.resume();
        throw ApiError.invalid([
          { path: part.fieldname, message: `the manifest goes in the "${MANIFEST_FIELD}" field` },
        ]);
      }
      read = await readManifest(part.file.iterator({ destroyOnReturn: false }), {
        fileName: part.filename || 'manifest',
      });
      await finished(part.file.resume());
      if (part.file.truncated)
        throw new ApiError(413, `The manifest is larger than ${MAX_MANIFEST_BYTES} bytes`, [
          { path: MANIFEST_FIELD, message: 'is too large' },
        ]);
    } else {
      fields.set(part.fieldname, String(part.value));
    }
  }
  if (read === undefined)
    throw ApiError.invalid([{ path: MANIFEST_FIELD, message: 'is required (a CSV or JSONL file)' }]);
  const issues: { path: string; message: string }[] = [];
  const campaignId = fields.get('campaignId');
  const checkedId = campaignId === undefined ? undefined : campaignIdSchema.safeParse(campaignId);
  if (checkedId && !checkedId.success)
    for (const issue of checkedId.error.issues) issues.push({ path: 'campaignId', message: issue.message });
  const skip = fields.get('skipInvalid');
  if (skip !== undefined && !/^(true|false)$/.test(skip))
    issues.push({ path: 'skipInvalid', message: 'must be true or false' });
  const maxInFlight = fields.get('maxInFlight');
  if (maxInFlight !== undefined && !/^(\d+|auto)$/.test(maxInFlight))
    issues.push({ path: 'maxInFlight', message: 'must be a whole number or auto' });
  const review = fields.get('review');
  if (review !== undefined && !/^(true|false)$/.test(review))
    issues.push({ path: 'review', message: 'must be true or false' });
  for (const name of fields.keys()) {
    if ((OPERATOR_CAMPAIGN_OPTIONS as readonly string[]).includes(name))
      issues.push({ path: name, message: operatorSettingMessage(name as OperatorCampaignOption) });
    else if (!FORM_FIELDS.includes(name))
      issues.push({ path: name, message: `is not a campaign field (${FORM_FIELDS.join(', ')})` });
  }
  if (issues.length > 0) throw ApiError.invalid(issues);
  return {
    kind: 'file',
    read,
    ...(campaignId ? { campaignId } : {}),
    ...(skip === 'true' ? { skipInvalid: true } : {}),
    ...(maxInFlight || review === 'true'
      ? {
          options: {
            ...(maxInFlight
              ? { maxInFlight: maxInFlight === 'auto' ? ('auto' as const) : Number(maxInFlight) }
              : {}),
            ...(review === 'true' ? { review: { required: true } } : {}),
          },
        }
      : {}),
  };
}

/** The multipart form's text fields besides the manifest file. */
const FORM_FIELDS = ['campaignId', 'skipInvalid', 'maxInFlight', 'review'];

function apiIssues(issues: ManifestIssue[], json: boolean, prefix: string) {
  return issues.map((issue) => {
    // JSON rows are numbered from 1 by the validator; the path uses the array index.
    const where = json ? issue.row - 1 : issue.row;
    const field = issue.field.startsWith('(') ? [] : [issue.field];
    return {
      path: [prefix, where, ...field].join('.'),
      message: `${json ? `subject ${where}` : `line ${issue.row}`}${issue.subjectId ? ` (${issue.subjectId})` : ''}: ${issue.field.startsWith('(') ? '' : `${issue.field} `}${issue.message}`,
    };
  });
}

function manifestMessage(validation: ManifestValidation): string {
  const rows = validation.invalidRows.length;
  return `The manifest has ${validation.issues.length} problem(s) in ${rows} of ${validation.rows} row(s); nothing was started`;
}

/** The answer to an id that names no campaign (of the caller's). */
export const unknownCampaign = (id: string): ApiError => new ApiError(404, `No campaign ${id}`, []);

/**
 * The campaign's Temporal status. An id Temporal does not know, one held by another kind of
 * workflow (a pipeline, a claim) and another tenant's campaign get the same 404, so the answer
 * tells nothing about internal ids or other tenants' campaigns.
 */
export async function known(client: Client, tenant: string, id: string): Promise<string> {
  return (await knownCampaign(client, tenant, id)).status.name;
}

/** The campaign's description, with the same 404 as `known`. */
async function knownCampaign(
  client: Client,
  tenant: string,
  id: string,
): Promise<WorkflowExecutionDescription> {
  const description = await runOfTenant(client, tenant, id);
  if (description?.type !== WORKFLOW_TYPES.campaign) throw unknownCampaign(id);
  return description;
}

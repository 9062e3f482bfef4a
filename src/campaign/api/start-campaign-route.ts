import type { Pricing } from '@avatar-pipeline/client/client/budget';
import { pricingOf } from '../../config/tenants';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  validateManifestObjects,
  validateManifestRead,
  type ManifestIssue,
  type ManifestValidation,
} from '../manifest';
import { manifestModelCheck } from '../manifest/model-check';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { campaignShare } from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import { InputError } from '@avatar-pipeline/client/errors';
import { ApiError, errorBodySchema, MAX_LISTED_ISSUES } from '../../api/api-error';
import type { ApiContext } from '../../api/api-context';
import { BEARER_SCHEME } from '../../api/openapi';
import { providerOfTenant } from '../../api/provider-read';
import { campaignLinks } from './known-campaign';
import { MANIFEST_FIELD, readJsonBody, readManifestForm } from './manifest-form';
import { campaignStartedSchema } from './schemas';

/**
 * POST /v1/campaigns: JSON subjects, or a CSV/JSONL manifest uploaded as multipart field
 * `manifest` (manifest-form.ts reads both; the OpenAPI document takes their bodies from
 * request-docs.ts). Every row is checked before anything starts.
 */
export function registerStartCampaignRoute(app: FastifyInstance, ctx: ApiContext): void {
  const { placement, campaigns } = ctx.config;
  app.withTypeProvider<ZodTypeProvider>().route({
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
      security: [{ [BEARER_SCHEME]: [] }],
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
      const knownStyles = (await ctx.offeredStyles())?.map((style) => style.id);
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
          ...pricingOption(pricingOf(ctx.config, request.caller.tenant)),
        });
        const links = campaignLinks(campaign.campaignId);
        return await reply
          .code(202)
          .header('location', links.self)
          .send({
            campaignId: campaign.campaignId,
            total: validation.subjects.length,
            skipped: validation.issues.slice(0, MAX_LISTED_ISSUES),
            skippedTotal: validation.issues.length,
            links,
          });
      } catch (err) {
        if (err instanceof InputError) throw ApiError.fromInputError(err);
        if (err instanceof Error && err.name === 'CampaignManifestError')
          throw new ApiError(409, err.message, []);
        throw err;
      }
    },
  });
}

/** The manifest's problems as the API's issues: `subjects.<index>.<field>` or `manifest.<line>.<field>`. */
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

function pricingOption(pricing: Pricing | undefined): { pricing?: Pricing } {
  return pricing ? { pricing } : {};
}

import { finished } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { MAX_MANIFEST_BYTES, readManifest, type ManifestRead } from '../manifest';
import {
  campaignIdSchema,
  type campaignOptionsSchema,
  OPERATOR_CAMPAIGN_OPTIONS,
  operatorSettingMessage,
  type OperatorCampaignOption,
} from '@avatar-pipeline/client/contracts/campaign/campaign';
import { ApiError } from '../../api/api-error';
import { campaignJsonStartSchema } from './schemas';

/** The multipart field that holds the manifest file. */
export const MANIFEST_FIELD = 'manifest';

/** The multipart form's text fields besides the manifest file. */
const FORM_FIELDS = ['campaignId', 'skipInvalid', 'maxInFlight', 'review'];

/** What POST /v1/campaigns was asked to start: JSON subjects or a manifest file, and its settings. */
export type ManifestForm = ({ kind: 'json'; subjects: unknown[] } | { kind: 'file'; read: ManifestRead }) & {
  campaignId?: string;
  skipInvalid?: boolean;
  options?: z.input<typeof campaignOptionsSchema>;
};

/** The JSON body, checked against campaignJsonStartSchema (its subjects are checked row by row later). */
export function readJsonBody(body: unknown): ManifestForm {
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
export async function readManifestForm(request: FastifyRequest): Promise<ManifestForm> {
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

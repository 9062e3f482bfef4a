import type { ApiIssue } from './api-error';
import type { UploadedSelfie } from './multipart-upload';

/** Text fields a multipart pipeline request may carry besides its `selfies` files. */
export const FORM_FIELDS = [
  'styles',
  'gender',
  'mainImageIndex',
  'mainImage',
  'subjectId',
  'callbackUrl',
  'callbackEvents',
  'trainingDeadlineMs',
  'generationDeadlineMs',
  'polling',
  'review',
] as const;
type FormField = (typeof FORM_FIELDS)[number];

const INTEGER = /^-?\d+$/;
/** Numbers become numbers; anything else stays text, so the schema names the field and why. */
const numberOrText = (value: string): number | string => (INTEGER.test(value.trim()) ? Number(value) : value);

/**
 * Turns form fields into a pipeline request for the shared schema. `styles` may be repeated, comma
 * separated or a JSON array; `mainImage` names an uploaded file instead of giving its index.
 * Problems the schema cannot see (unknown or repeated fields, an unknown file name) are returned as issues.
 */
export function requestFromForm(
  fields: Map<string, string[]>,
  selfies: UploadedSelfie[],
): { request: Record<string, unknown>; issues: ApiIssue[] } {
  const issues: ApiIssue[] = [];
  const request: Record<string, unknown> = { images: selfies.map((s) => s.reference) };
  const single = (name: FormField): string | undefined => {
    const values = fields.get(name);
    if (values && values.length > 1) issues.push({ path: name, message: 'must be given once' });
    return values?.[0];
  };

  for (const name of fields.keys()) {
    if (!(FORM_FIELDS as readonly string[]).includes(name)) {
      issues.push({
        path: name,
        message: `is not a field of this request (fields: selfies, ${FORM_FIELDS.join(', ')})`,
      });
    }
  }

  const styles = fields.get('styles');
  if (styles !== undefined) request.styles = styles.flatMap(parseStyles);

  const gender = single('gender');
  if (gender !== undefined) request.gender = numberOrText(gender);

  for (const name of ['mainImageIndex', 'trainingDeadlineMs', 'generationDeadlineMs'] as const) {
    const value = single(name);
    if (value !== undefined) request[name] = numberOrText(value);
  }
  for (const name of ['subjectId', 'callbackUrl'] as const) {
    const value = single(name);
    if (value !== undefined) request[name] = value;
  }

  const callbackEvents = fields.get('callbackEvents');
  if (callbackEvents !== undefined) {
    request.callbackEvents = callbackEvents.flatMap((v) => v.split(',').map((e) => e.trim()));
  }

  const polling = single('polling');
  if (polling !== undefined) request.polling = parseJsonOrText(polling);

  // `review=true` asks for review with the defaults; a JSON object gives its settings.
  const review = single('review');
  if (review !== undefined)
    request.review = review.trim() === 'true' ? { required: true } : parseJsonOrText(review);

  const mainImage = single('mainImage');
  if (mainImage !== undefined) {
    if (request.mainImageIndex !== undefined) {
      issues.push({ path: 'mainImage', message: 'give mainImage or mainImageIndex, not both' });
    }
    const index = selfies.findIndex((s) => s.filename === mainImage);
    if (index < 0)
      issues.push({ path: 'mainImage', message: 'must be the file name of one of the uploaded selfies' });
    else request.mainImageIndex = index;
  }
  return { request, issues };
}

/** A JSON object field (`polling`, `review`); text that is not JSON is left for the schema to refuse. */
function parseJsonOrText(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function parseStyles(value: string): unknown[] {
  const trimmed = value.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON after all: read it as a list
    }
  }
  return trimmed
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map(numberOrText);
}

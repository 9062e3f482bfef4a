import type { z } from 'zod';
import { PROVIDER_ENDPOINTS } from '@avatar-pipeline/client/provider/endpoints';
import { badRequest } from '../simulator-refusal';

const BODIES = {
  createModel: PROVIDER_ENDPOINTS.createModel.request,
  createOrder: PROVIDER_ENDPOINTS.createOrder.request,
  uploadTrainingImage: PROVIDER_ENDPOINTS.uploadTrainingImage.request,
};
type EndpointWithBody = keyof typeof BODIES;

const ORDER_FIELD_RULES = {
  styles: 'must be a non-empty array of integer style ids',
  gender: 'must be the integer 1 (woman) or 2 (man)',
  parent: 'must be the integer id of a trained model',
};

/** The rule each field breaks, in the words a provider error message uses. */
const FIELD_RULES: Record<EndpointWithBody, Readonly<Record<string, string>>> = {
  createModel: ORDER_FIELD_RULES,
  createOrder: ORDER_FIELD_RULES,
  uploadTrainingImage: {
    // A strict simulator catches clients that forget the upload body's gender is a string.
    gender: 'must be the string "1" (woman) or "2" (man)',
    image: 'must be a Base64 string, optionally with a data:image/...;base64, header',
  },
};

/**
 * Validates a request body against the endpoint table's schema, answering 400 with a message
 * that names the first bad field and its rule.
 */
export function parseBody<E extends EndpointWithBody>(
  endpoint: E,
  body: unknown,
): z.output<(typeof BODIES)[E]> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('request body must be a JSON object');
  }
  const result = BODIES[endpoint].safeParse(body);
  if (result.success) return result.data as z.output<(typeof BODIES)[E]>;
  const field = String(result.error.issues[0]?.path[0] ?? 'body');
  const rule = FIELD_RULES[endpoint][field];
  throw badRequest(`${field}: ${rule ?? result.error.issues[0]?.message ?? 'is invalid'}`);
}

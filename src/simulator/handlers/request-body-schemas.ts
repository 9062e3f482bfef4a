import { z } from 'zod';
import { badRequest } from '../provider-error';
import { genderSchema } from '../state-schema';

const styles = z.array(z.number().int().positive()).min(1);

export const createModelBodySchema = z.object({ styles, gender: genderSchema });
export type CreateModelBody = z.infer<typeof createModelBodySchema>;

export const createOrderBodySchema = z.object({
  styles,
  gender: genderSchema,
  parent: z.number().int().positive(),
});
export type CreateOrderBody = z.infer<typeof createOrderBodySchema>;

/** In the upload body gender is a string: the spec says so, and a strict simulator catches clients that forget. */
export const uploadBodySchema = z.object({ gender: z.enum(['1', '2']), image: z.string() });
export type UploadBody = z.infer<typeof uploadBodySchema>;

type FieldRules = Readonly<Record<string, string>>;

export const ORDER_FIELD_RULES: FieldRules = {
  styles: 'must be a non-empty array of integer style ids',
  gender: 'must be the integer 1 (woman) or 2 (man)',
  parent: 'must be the integer id of a trained model',
};
export const UPLOAD_FIELD_RULES: FieldRules = {
  gender: 'must be the string "1" (woman) or "2" (man)',
  image: 'must be a Base64 string, optionally with a data:image/...;base64, header',
};

/** Validates a request body, answering 400 with a message that names the first bad field and its rule. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, rules: FieldRules): z.infer<T> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('request body must be a JSON object');
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const field = String(result.error.issues[0]?.path[0] ?? 'body');
  const rule = rules[field];
  throw badRequest(`${field}: ${rule ?? result.error.issues[0]?.message ?? 'is invalid'}`);
}

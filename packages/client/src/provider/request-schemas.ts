import { z } from 'zod';

/**
 * What the client accepts from its callers. Checked before any request is sent, so bad input
 * never reaches (or is half-written at) the provider.
 */
export const genderSchema = z.union([z.literal(1), z.literal(2)], {
  error: 'must be 1 (woman) or 2 (man)',
});
export type Gender = z.infer<typeof genderSchema>;

export const orderIdSchema = z
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .positive('must be a positive integer');

export const stylesSchema = z
  .array(
    z.number({ error: 'must be a number' }).int('must be an integer').positive('must be a positive integer'),
    {
      error: 'must be an array of style ids',
    },
  )
  .min(1, 'must name at least one style')
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a style id');

export const createModelRequestSchema = z.strictObject({ styles: stylesSchema, gender: genderSchema });
export type CreateModelRequest = z.infer<typeof createModelRequestSchema>;

export const createOrderRequestSchema = z.strictObject({
  styles: stylesSchema,
  gender: genderSchema,
  parent: orderIdSchema,
});
export type CreateOrderRequest = z.infer<typeof createOrderRequestSchema>;

export const pageIndexSchema = z.number().int('must be an integer').nonnegative('must not be negative');

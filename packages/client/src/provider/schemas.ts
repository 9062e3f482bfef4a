import { z } from 'zod';
import { normalizeStatus } from './status';

/**
 * Response schemas: they accept the contract's shapes and every variant the real service is
 * known to send (docs/provider-api.md, "Known variants"), and output the contract's canonical shapes. Extra
 * fields are kept (loose objects), never rejected.
 */

/** Integer ids may arrive as numeric strings ("123"). */
export const providerId = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^\d+$/, 'expected an integer or a numeric string')
    .transform((s) => Number(s)),
]);

const gender = z.union([z.literal(1), z.literal(2), z.literal('1'), z.literal('2')]).transform(Number);

export const statusValue = z.string().min(1).transform(normalizeStatus);

/** Lists may be bare arrays (contract) or wrapped: {"models": [...]}, {"orders": [...]}, {"data": [...]}... */
const LIST_WRAPPER_KEYS = [
  'data',
  'orders',
  'models',
  'avatars',
  'images',
  'training_images',
  'styles',
  'items',
];
export function listOf<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => {
    if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
    const wrapped = value as Record<string, unknown>;
    const key = LIST_WRAPPER_KEYS.find((k) => Array.isArray(wrapped[k]));
    return key === undefined ? value : wrapped[key];
  }, z.array(item));
}

/** Moves a variant field name onto the contract's name before validation (selfie_id -> id). */
function renamed(from: string, to: string) {
  return (value: unknown) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const record = value as Record<string, unknown>;
    return record[to] === undefined && record[from] !== undefined ? { ...record, [to]: record[from] } : value;
  };
}

export const orderSchema = z.looseObject({
  id: providerId,
  parent: providerId.optional(),
  gender: gender.optional(),
  styles: z.array(providerId).optional(),
  status: statusValue,
  message: z.string().optional(),
  created_at: z.string().optional(),
});
export type Order = z.output<typeof orderSchema>;

/** Status and run answers: id and status, plus progress (0-100) and message when the provider gives them. */
export const orderStatusSchema = z.looseObject({
  id: providerId,
  status: statusValue,
  progress: z.coerce.number().min(0).max(100).optional(),
  message: z.string().optional(),
});
export type OrderStatusResponse = z.output<typeof orderStatusSchema>;

export const trainingImageSchema = z.preprocess(
  renamed('selfie_id', 'id'),
  z.looseObject({
    id: providerId,
    order_id: providerId.optional(),
    image_url: z.string().optional(),
    selected: z.boolean().default(false),
  }),
);
export type TrainingImage = z.output<typeof trainingImageSchema>;

export const selectResultSchema = z.looseObject({
  status: z.string(),
  selected_image_id: providerId.optional(),
});
export type SelectResult = z.output<typeof selectResultSchema>;

/** Avatars may carry filename / filename_small (full image and thumbnail) beside or instead of image_url. */
export const avatarSchema = z
  .preprocess(
    renamed('id', 'avatar_id'),
    z.looseObject({
      avatar_id: providerId,
      image_url: z.string().optional(),
      filename: z.string().optional(),
      filename_small: z.string().optional(),
    }),
  )
  .transform((a, ctx) => {
    const imageUrl = a.image_url ?? a.filename;
    if (imageUrl === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'avatar has neither image_url nor filename',
        path: ['image_url'],
      });
      return z.NEVER;
    }
    return { ...a, image_url: imageUrl };
  });
export type Avatar = z.output<typeof avatarSchema>;

export const styleSchema = z.preprocess(
  renamed('style_id', 'id'),
  z.looseObject({ id: providerId, name: z.string() }),
);
export type Style = z.output<typeof styleSchema>;

export const orderListSchema = listOf(orderSchema);
export const trainingImageListSchema = listOf(trainingImageSchema);
export const avatarPageSchema = listOf(avatarSchema);
export const styleListSchema = listOf(styleSchema);

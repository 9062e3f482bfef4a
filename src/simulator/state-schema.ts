import { z } from 'zod';

/** The contract's statuses; the variant dialect only spells them differently on the wire. */
export const orderStatusSchema = z.enum(['CREATED', 'STARTED', 'IN_PROGRESS', 'DONE', 'ERROR']);
export type OrderStatus = z.infer<typeof orderStatusSchema>;

const genderSchema = z.union([z.literal(1), z.literal(2)]);
export type Gender = z.infer<typeof genderSchema>;

const id = z.number().int().nonnegative();
const terminalOutcome = z.enum(['DONE', 'ERROR']);

/**
 * Decided when an order is run and never changed afterwards, so later option changes do not
 * rewrite the fate of orders already running.
 */
const runPlanSchema = z.discriminatedUnion('mode', [
  z.object({
    mode: z.literal('wall'),
    startedAt: z.number(),
    durationMs: z.number().nonnegative(),
    outcome: terminalOutcome,
    failureMessage: z.string(),
  }),
  z.object({
    mode: z.literal('calls'),
    callsNeeded: z.number().int().positive(),
    callsSeen: z.number().int().nonnegative(),
    outcome: terminalOutcome,
    failureMessage: z.string(),
  }),
]);
export type RunPlan = z.infer<typeof runPlanSchema>;

const avatarRecordSchema = z.object({
  avatarId: id,
  styleId: z.number().int(),
  /** Position within the order; varies the picture between avatars of one style. */
  index: z.number().int().nonnegative(),
});
export type AvatarRecord = z.infer<typeof avatarRecordSchema>;

/** Per-order counters that let tests prove a client never duplicated a write. */
const orderCountersSchema = z.object({
  uploads: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  runAttempts: z.number().int().nonnegative(),
  selects: z.number().int().nonnegative(),
  statusCalls: z.number().int().nonnegative(),
});
export type OrderCounters = z.infer<typeof orderCountersSchema>;

const orderRecordSchema = z.object({
  id,
  parent: id,
  kind: z.enum(['model', 'generation']),
  gender: genderSchema,
  styles: z.array(z.number().int()),
  status: orderStatusSchema,
  createdAt: z.number(),
  run: runPlanSchema.nullable(),
  avatars: z.array(avatarRecordSchema),
  selectedImageId: id.nullable(),
  counters: orderCountersSchema,
});
export type OrderRecord = z.infer<typeof orderRecordSchema>;

const imageFormatSchema = z.enum(['jpeg', 'png']);
export type ImageFormat = z.infer<typeof imageFormatSchema>;

const trainingImageMetaSchema = z.object({
  id,
  orderId: id,
  format: imageFormatSchema,
  byteLength: z.number().int().nonnegative(),
  uploadedAt: z.number(),
});
export type TrainingImageMeta = z.infer<typeof trainingImageMetaSchema>;
/** The bytes stay in memory: avatars are drawn from them. */
export type TrainingImageRecord = TrainingImageMeta & { bytes: Buffer };

export const persistedStateSchema = z.object({
  version: z.literal(1),
  nextOrderId: id,
  nextImageId: id,
  nextAvatarId: id,
  orders: z.array(orderRecordSchema),
  trainingImages: z.array(trainingImageMetaSchema),
});
export type PersistedState = z.infer<typeof persistedStateSchema>;

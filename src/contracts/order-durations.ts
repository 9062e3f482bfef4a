/**
 * How long provider orders of one kind take, as learned from finished ones: what the duration
 * activities answer and record, and what the poll schedule reads (workflows/polling.ts). Workflows
 * import this module for its types only (zod stays out of the workflow bundle); the kinds' names
 * are in order-kinds.ts.
 */
import { z } from 'zod';

const durationMs = z.number().int('must be an integer').nonnegative('must not be negative');

/** Orders that take alike: a training by its selfie count, a generation by its style. */
export const orderKindSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,99}$/, 'must be lowercase letters, digits and dashes');
export type OrderKind = z.output<typeof orderKindSchema>;

/**
 * One order that finished: it ended after the last status read that showed it unfinished and by
 * the read that showed it DONE, both counted from its run.
 */
export const finishedOrderSchema = z
  .strictObject({
    kind: orderKindSchema,
    orderId: z.number().int().positive(),
    /** When it was seen DONE (epoch ms, workflow time): orders the samples, newest last. */
    seenDoneAt: z.number().int().nonnegative(),
    afterMs: durationMs,
    byMs: durationMs,
  })
  .refine((order) => order.afterMs <= order.byMs, { path: ['afterMs'], message: 'must not exceed byMs' });
export type FinishedOrder = z.output<typeof finishedOrderSchema>;

/** The finish of one kind of order that recent runs lead to expect. */
export const expectedDurationSchema = z.strictObject({
  /** The median of the recent runs' durations. */
  typicalMs: durationMs,
  /** From here to latestMs the finish is expected: status reads are concentrated there. */
  earliestMs: durationMs,
  latestMs: durationMs,
  /** How many finished runs the figure comes from. */
  runs: z.number().int().positive(),
});
export type ExpectedDuration = z.output<typeof expectedDurationSchema>;

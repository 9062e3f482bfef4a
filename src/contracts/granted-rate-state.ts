/**
 * What the provider workers report to the rate controller (granted-rate.ts) and what the
 * controller keeps between samples and across continue-as-new.
 */
import { z } from 'zod';

/** One provider worker's answers since its previous report. */
export const providerAnswersSchema = z.object({
  /** The reporting process; its reports add up over the controller's sample. */
  workerId: z.string().min(1),
  /** How long the counts were gathered over, in ms. */
  windowMs: z.number().positive(),
  /** Answers other than 429 (the provider took the request, whatever it said). */
  accepted: z.number().int().nonnegative(),
  /** 429 answers. */
  rateLimited: z.number().int().nonnegative(),
  /** The longest Retry-After among the 429s, in ms (0 without any). */
  retryAfterMs: z.number().nonnegative(),
  /** PROVIDER_MAX_RPS as this worker is configured: the rate is never set above it. */
  ceiling: z.number().positive(),
});
export type ProviderAnswers = z.infer<typeof providerAnswersSchema>;

/** What the controller keeps between samples (and carries over continue-as-new). */
export const grantedRateStateSchema = z.object({
  /** The rate limit set on the provider task queue, requests/s. */
  rate: z.number().positive(),
  /** PROVIDER_MAX_RPS: the rate's ceiling. */
  ceiling: z.number().positive(),
  /** The accepted rate when the provider last refused requests: where probing slows down. */
  knee: z.number().positive().optional(),
  /** When the rate was last cut (epoch ms); 429s sent before the cut took effect are not counted again. */
  cutAt: z.number().optional(),
  /** No increase before this time (epoch ms): the provider's Retry-After. */
  holdUntil: z.number().optional(),
  /** When the rate reached the knee's neighbourhood (epoch ms): the probe speeds up from there. */
  probingSince: z.number().optional(),
  /** 429s counted since the controller started (the run and those it continued from). */
  rateLimitedTotal: z.number().int().nonnegative(),
  acceptedTotal: z.number().int().nonnegative(),
});
export type GrantedRateState = z.infer<typeof grantedRateStateSchema>;

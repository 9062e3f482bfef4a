/**
 * What provider work costs and what a tenant may spend: the prices an operator sets, a tenant's
 * budget, an order as the meter counts it, and the usage it answers. Imported by workflow code (the
 * meter's ledger) for its types only: the ledger's values come from order-kinds.ts, without zod.
 */
import { z } from 'zod';
import { ORDER_KINDS, type OrderKind } from './order-kinds';

export { ORDER_KINDS, type OrderKind };
export const orderKindSchema = z.enum(ORDER_KINDS);

const credits = z.number().min(0, 'must be 0 or more').max(1e9, 'must be at most 1000000000');

/** Credits per order kind; a regeneration costs a generation unless priced on its own. */
export const costsSchema = z.strictObject({
  training: credits,
  generation: credits,
  regeneration: credits.optional(),
});
export type Costs = z.output<typeof costsSchema>;

/** A tenant's budget: credits per period (a calendar month, UTC, or the tenant's whole life). */
export const budgetSchema = z.strictObject({
  credits,
  period: z.enum(['monthly', 'none']).default('monthly'),
  /** hard: a start that would pass the budget is refused; soft: it is let through and reported. */
  mode: z.enum(['hard', 'soft']).default('hard'),
  /** Percentages of the budget at which the tenant is told (budget.threshold), each once a period. */
  alerts: z
    .array(z.number().int('must be a whole number').min(1, 'must be 1-100').max(100, 'must be 1-100'))
    .default([50, 80, 100]),
});
export type Budget = z.output<typeof budgetSchema>;

/** What a run may cost at most: its training unless it uses a trained model, and each style once. */
export function maxRunCost(costs: Costs, run: { trains: boolean; styles: number }): number {
  return (run.trains ? costs.training : 0) + run.styles * costs.generation;
}

/** The credits of one order of `kind`. */
export function costOf(costs: Costs, kind: OrderKind): number {
  if (kind === 'regeneration') return costs.regeneration ?? costs.generation;
  return costs[kind];
}

/** One order as the meter counts it: `key` names it at the provider, so a reconciled duplicate counts once. */
export const orderChargeSchema = z.strictObject({
  key: z.string().min(1),
  kind: orderKindSchema,
  runId: z.string().min(1),
  campaignId: z.string().min(1).optional(),
  credits,
  /** When it was created (ms since the epoch): the period it counts in. */
  at: z.number().int(),
});
export type OrderCharge = z.output<typeof orderChargeSchema>;

const byKindSchema = z.record(orderKindSchema, z.object({ orders: z.number(), credits: z.number() }));

/** A tenant's usage in one period. */
export const usageSchema = z.object({
  tenant: z.string(),
  /** `2026-12` for a monthly budget, `all` without a period. */
  period: z.string(),
  budget: budgetSchema.optional(),
  spent: z.number(),
  /** What unfinished runs may still spend of what they reserved. */
  reserved: z.number(),
  /** budget − spent − reserved, never below 0; absent without a budget. */
  left: z.number().optional(),
  byKind: byKindSchema,
  byCampaign: z.record(z.string(), z.object({ orders: z.number(), credits: z.number() })),
});
export type Usage = z.output<typeof usageSchema>;

/** The kinds of provider work the meter counts: a training (a model), one style generated, a regeneration. Workflow-safe: no zod. */
export const ORDER_KINDS = ['training', 'generation', 'regeneration'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/** The period an order made at `at` counts in: its calendar month (UTC), or `all` for a budget without a period. */
export function usagePeriod(at: number, period: 'monthly' | 'none' | undefined): string {
  return period === 'none' ? 'all' : new Date(at).toISOString().slice(0, 7);
}

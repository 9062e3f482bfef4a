import type { MetricMeter } from '@temporalio/common';
import type { Usage } from '@avatar-pipeline/client/contracts/usage';

export const BUDGET_METRICS = {
  spent: 'avatar_pipeline_budget_spent_credits',
  reserved: 'avatar_pipeline_budget_reserved_credits',
  budget: 'avatar_pipeline_budget_credits',
} as const;

/**
 * A tenant's usage as gauges on the worker's Prometheus endpoint, by tenant: credits spent this
 * period, reserved by unfinished runs, and the budget (absent without one). Each tenant's meter
 * reports its usage through an activity soon after it changes, so the worker that ran the latest
 * report holds the current figures (take the max across workers).
 */
export class BudgetMetrics {
  private readonly spent;
  private readonly reserved;
  private readonly budget;

  constructor(meter: MetricMeter) {
    this.spent = meter.createGauge(
      BUDGET_METRICS.spent,
      'float',
      'credits',
      'Credits spent this period, by tenant',
    );
    this.reserved = meter.createGauge(
      BUDGET_METRICS.reserved,
      'float',
      'credits',
      'Credits unfinished runs hold reserved, by tenant',
    );
    this.budget = meter.createGauge(
      BUDGET_METRICS.budget,
      'float',
      'credits',
      "The tenant's budget a period",
    );
  }

  report(usage: Usage): void {
    const tags = { tenant: usage.tenant };
    this.spent.set(usage.spent, tags);
    this.reserved.set(usage.reserved, tags);
    if (usage.budget !== undefined) this.budget.set(usage.budget.credits, tags);
  }
}

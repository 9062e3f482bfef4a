/**
 * How starters and activities talk to a tenant's budget meter (workflows/budget/budget-meter.ts):
 * its id, the reservation a start asks for, the orders it is told of, the usage it answers.
 */
import { FAILURE_TYPES } from './failure-types';
import { defineQuery, defineSignal, defineUpdate } from './message-definitions';
import { BUDGET_METER_WORKFLOW_ID_PREFIX } from './workflow-ids';
import type { Budget, OrderCharge, Usage } from './usage';

export function budgetMeterWorkflowId(tenant: string): string {
  return `${BUDGET_METER_WORKFLOW_ID_PREFIX}${tenant}`;
}

export interface BudgetMeterInput {
  tenant: string;
  /** The state a continued meter carries on (MeterLedgerState); absent on a new meter. */
  carried?: unknown;
  /**
   * How often ended runs' reservations are looked for, and how old a reservation must be to be
   * looked at (its starter starts the run moments after reserving). Default: 2 and 5 minutes.
   */
  sweep?: { everyMs: number; graceMs: number };
}

export interface BudgetReservation {
  /** The run the reservation is for: a repeated request for it reserves nothing more. */
  runId: string;
  /** What the run may cost at most (maxRunCost). */
  credits: number;
  campaignId?: string;
  /** The tenant's budget as the caller's configuration says now; absent: the tenant has none. */
  budget?: Budget;
}

/**
 * Reserves a run's most; refused (the update's validator throws an ApplicationFailure of type
 * BUDGET_EXCEEDED naming the budget) when that would take a hard budget past its credits, which
 * leaves nothing in the meter's history. Answers the usage with the reservation.
 */
export const reserveBudgetUpdate = defineUpdate<Usage, [BudgetReservation]>('reserveBudget');
/** An order the package created: counted once by its key. */
export const chargeOrderSignal = defineSignal<[OrderCharge]>('chargeOrder');
/** A run has ended: what it reserved and did not spend is free again. */
export const settleRunSignal = defineSignal<[{ runId: string }]>('settleRun');
export const usageQuery = defineQuery<Usage>('usage');

/** The failure type of a refused reservation (the API answers 402). */
export const BUDGET_EXCEEDED = FAILURE_TYPES.budgetExceeded;

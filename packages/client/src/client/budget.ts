/**
 * A tenant's budget meter as starters and activities reach it: a start reserves what its run may
 * cost before the run exists, an activity tells it of an order it made, a reader asks for usage.
 * The meter (workflow `budgetMeter`, one per tenant) is started by the first reservation or order.
 */
import {
  WithStartWorkflowOperation,
  WorkflowIdConflictPolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  budgetMeterWorkflowId,
  BUDGET_EXCEEDED,
  chargeOrderSignal,
  reserveBudgetUpdate,
  settleRunSignal,
  usageQuery,
  type BudgetMeterInput,
} from '../contracts/budget-meter';
import { ORDER_KINDS, usagePeriod } from '../contracts/order-kinds';
import type { Budget, Costs, OrderCharge, Usage } from '../contracts/usage';
import { WORKFLOW_TYPES } from '../contracts/workflow-definitions';
import { AvatarPipelineError } from '../errors';

/** What the operator's tenants file says a tenant's work costs and may cost: metering is on when given. */
export interface Pricing {
  costs: Costs;
  /** The tenant's budget; absent: its work is metered but never refused. */
  budget?: Budget;
}

/** A start refused because its run would take the tenant past a hard budget (the API answers 402). */
export class BudgetExceededError extends AvatarPipelineError {}

/** Where a tenant's meter runs: the pipeline task queue, whose workers register it. */
export interface MeterPlace {
  tenant: string;
  taskQueue: string;
}

function meterStart(place: MeterPlace) {
  const input: BudgetMeterInput = { tenant: place.tenant };
  return {
    workflowId: budgetMeterWorkflowId(place.tenant),
    taskQueue: place.taskQueue,
    args: [input] as [BudgetMeterInput],
    staticSummary: `Budget meter of tenant ${place.tenant}`,
  };
}

/**
 * Reserves `credits` for `runId` under `budget`, starting the tenant's meter if it has none. A
 * run that holds a reservation keeps it (a repeated start reserves nothing more). Throws
 * BudgetExceededError, with the meter's reason, when a hard budget would be passed.
 */
export async function reserveRunBudget(
  client: Client,
  place: MeterPlace,
  reservation: {
    runId: string;
    credits: number;
    campaignId?: string | undefined;
    budget?: Budget | undefined;
  },
): Promise<Usage> {
  const startWorkflowOperation = new WithStartWorkflowOperation(WORKFLOW_TYPES.budgetMeter, {
    ...meterStart(place),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  try {
    return await client.workflow.executeUpdateWithStart(reserveBudgetUpdate, {
      args: [
        {
          runId: reservation.runId,
          credits: reservation.credits,
          ...(reservation.campaignId !== undefined ? { campaignId: reservation.campaignId } : {}),
          ...(reservation.budget !== undefined ? { budget: reservation.budget } : {}),
        },
      ],
      startWorkflowOperation,
    });
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === BUDGET_EXCEEDED) {
      throw new BudgetExceededError(cause.message, { cause: err });
    }
    throw err;
  }
}

/** The run has ended, or was never started: its reservation is free again. A missing meter holds nothing. */
export async function settleRunBudget(client: Client, tenant: string, runId: string): Promise<void> {
  try {
    await client.workflow.getHandle(budgetMeterWorkflowId(tenant)).signal(settleRunSignal, { runId });
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

/** Tells the tenant's meter of an order (counted once by its key), starting the meter if it has none. */
export async function chargeOrder(client: Client, place: MeterPlace, order: OrderCharge): Promise<void> {
  await client.workflow.signalWithStart(WORKFLOW_TYPES.budgetMeter, {
    ...meterStart(place),
    signal: chargeOrderSignal,
    signalArgs: [order],
  });
}

/**
 * The tenant's usage now, under `budget` as the configuration gives it (the meter keeps the one
 * its latest reservation brought). A tenant without a meter has used nothing.
 */
export async function readUsage(client: Client, tenant: string, budget: Budget | undefined): Promise<Usage> {
  let usage: Usage;
  try {
    usage = await client.workflow.getHandle(budgetMeterWorkflowId(tenant)).query(usageQuery);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    usage = unusedBy(tenant, budget);
  }
  const { budget: _kept, left: _left, ...rest } = usage;
  return {
    ...rest,
    ...(budget !== undefined
      ? { budget, left: Math.max(0, budget.credits - usage.spent - usage.reserved) }
      : {}),
  };
}

function unusedBy(tenant: string, budget: Budget | undefined): Usage {
  const none = { orders: 0, credits: 0 };
  return {
    tenant,
    period: usagePeriod(Date.now(), budget?.period),
    spent: 0,
    reserved: 0,
    byKind: Object.fromEntries(ORDER_KINDS.map((kind) => [kind, { ...none }])) as Usage['byKind'],
    byCampaign: {},
  };
}

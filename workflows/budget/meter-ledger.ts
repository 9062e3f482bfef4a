/**
 * A tenant's account of provider work: what each order cost, what unfinished runs hold reserved,
 * and what is left of the budget. Pure and deterministic, so the meter's workflow can keep it in
 * its state and carry it through continue-as-new; its state is plain data for that reason.
 *
 * An order is counted once by its key (the provider's id for it), so a retried activity, a
 * reconciled write or a signal sent twice adds nothing. A run's reservation is what it may cost at
 * most; its orders spend from it as they are counted, and what is still reserved is the part not
 * spent yet, released when the run is settled.
 */
import { ORDER_KINDS, usagePeriod, type OrderKind } from '@avatar-pipeline/client/contracts/order-kinds';
import type { Budget, OrderCharge, Usage } from '@avatar-pipeline/client/contracts/usage';

interface Tally {
  orders: number;
  credits: number;
}

interface PeriodTotals {
  byKind: Partial<Record<OrderKind, Tally>>;
  byCampaign: Record<string, Tally>;
}

interface Reservation {
  credits: number;
  /** Credits its orders have spent so far. */
  spent: number;
  /** When it was made (ms since the epoch). */
  at: number;
  campaignId?: string;
}

export interface MeterLedgerState {
  tenant: string;
  budget?: Budget;
  /** Totals per period (`2026-12`, or `all` without a period). */
  periods: Record<string, PeriodTotals>;
  /** Keys of the orders counted in the current and previous period: retries land within a run, never months later. */
  counted: Record<string, string>;
  reservations: Record<string, Reservation>;
  /** The alert percentages already announced, by period. */
  alerted: Record<string, number[]>;
  /** The periods in which the budget was announced exhausted. */
  exhausted?: string[];
}

/** The budget a question is asked under. */
interface BudgetUnder {
  budget?: Budget | undefined;
}

export type ReserveAnswer =
  { reserved: true; usage: Usage } | { reserved: false; reason: string; usage: Usage };

export interface ReserveRequest {
  runId: string;
  credits: number;
  campaignId?: string;
}

export class MeterLedger {
  constructor(readonly state: MeterLedgerState) {}

  static empty(tenant: string): MeterLedger {
    return new MeterLedger({ tenant, periods: {}, counted: {}, reservations: {}, alerted: {} });
  }

  /** The budget as the operator's configuration gives it now (absent: none). */
  setBudget(budget: Budget | undefined): void {
    if (budget === undefined) delete this.state.budget;
    else this.state.budget = budget;
  }

  /**
   * Reserves what `request.runId` may cost at most, unless that would take a hard budget past its
   * credits (with what is spent and reserved already). A run that holds a reservation keeps it:
   * a repeated request reserves nothing more.
   */
  reserve(request: ReserveRequest, at: number): ReserveAnswer {
    const refusal = this.refusalOf(request, at);
    if (refusal !== undefined) return { reserved: false, reason: refusal, usage: this.usage(at) };
    this.state.reservations[request.runId] ??= {
      credits: request.credits,
      spent: 0,
      at,
      ...(request.campaignId !== undefined ? { campaignId: request.campaignId } : {}),
    };
    return { reserved: true, usage: this.usage(at) };
  }

  /**
   * Why `reserve(request, at)` would be refused under `budget` (by default the ledger's own; an
   * explicit `{ budget: undefined }` is none); undefined when it would be taken. Changes nothing,
   * so an update's validator can ask it.
   */
  refusalOf(request: ReserveRequest, at: number, { budget }: BudgetUnder = this.state): string | undefined {
    if (budget === undefined || budget.mode === 'soft') return undefined;
    if (Object.hasOwn(this.state.reservations, request.runId)) return undefined;
    const usage = this.usage(at, { budget });
    if (usage.spent + usage.reserved + request.credits <= budget.credits) return undefined;
    return (
      `tenant "${this.state.tenant}" has a budget of ${budget.credits} credits` +
      `${budget.period === 'monthly' ? ` a month (${usage.period})` : ''}: ` +
      `${usage.spent} spent and ${usage.reserved} reserved leave ${usage.left ?? 0}, and this needs ${request.credits}`
    );
  }

  /**
   * Counts an order once. Answers whether it was new, and the alert percentages of the budget it
   * took the period past for the first time (to announce once each).
   */
  charge(order: OrderCharge): { counted: boolean; crossed: number[] } {
    if (Object.hasOwn(this.state.counted, order.key)) return { counted: false, crossed: [] };
    const period = periodOf(order.at, this.state.budget);
    if (!Object.hasOwn(this.state.periods, period)) this.forgetKeysBefore(period);
    this.state.counted[order.key] = period;
    const totals = (this.state.periods[period] ??= { byKind: {}, byCampaign: {} });
    add((totals.byKind[order.kind] ??= { orders: 0, credits: 0 }), order.credits);
    const reservation = this.state.reservations[order.runId];
    // Activities know the run, not its campaign: the run's reservation does.
    const campaignId = order.campaignId ?? reservation?.campaignId;
    if (campaignId !== undefined) {
      add((totals.byCampaign[campaignId] ??= { orders: 0, credits: 0 }), order.credits);
    }
    if (reservation !== undefined) reservation.spent += order.credits;
    return { counted: true, crossed: this.newlyCrossed(period) };
  }

  /** The run has ended: what it had reserved and not spent is free again. */
  settle(runId: string): void {
    delete this.state.reservations[runId];
  }

  /**
   * Runs holding a reservation made before `before`: the meter checks whether they have ended. A
   * newer one may be for a run its starter has not started yet, which would look ended (not found).
   */
  reservedRuns(before: number): string[] {
    return Object.entries(this.state.reservations)
      .filter(([, r]) => r.at < before)
      .map(([runId]) => runId);
  }

  /** Usage in the period of `at`, under `budget` (by default the ledger's own). */
  usage(at: number, { budget }: BudgetUnder = this.state): Usage {
    const period = periodOf(at, budget);
    const totals = this.state.periods[period] ?? { byKind: {}, byCampaign: {} };
    const byKind = Object.fromEntries(
      ORDER_KINDS.map((kind) => [kind, { ...(totals.byKind[kind] ?? { orders: 0, credits: 0 }) }]),
    ) as Usage['byKind'];
    const spent = ORDER_KINDS.reduce((sum, kind) => sum + byKind[kind].credits, 0);
    const reserved = Object.values(this.state.reservations).reduce(
      (sum, r) => sum + Math.max(0, r.credits - r.spent),
      0,
    );
    return {
      tenant: this.state.tenant,
      period,
      ...(budget !== undefined ? { budget, left: Math.max(0, budget.credits - spent - reserved) } : {}),
      spent,
      reserved,
      byKind,
      // No structuredClone in the workflow sandbox.
      byCampaign: Object.fromEntries(Object.entries(totals.byCampaign).map(([id, t]) => [id, { ...t }])),
    };
  }

  /**
   * Whether nothing is left of the budget in the period of `at` (spent and reserved reach its
   * credits) for the first time this period: true once a period, to announce once.
   */
  newlyExhausted(at: number): boolean {
    const usage = this.usage(at);
    if (usage.budget === undefined || usage.left !== 0) return false;
    const announced = (this.state.exhausted ??= []);
    if (announced.includes(usage.period)) return false;
    // Only the latest periods matter: the list stays short however long the meter runs.
    this.state.exhausted = [...announced.slice(-11), usage.period];
    return true;
  }

  /** On a period's first order: keeps the keys of it and of the latest period before it. */
  private forgetKeysBefore(period: string): void {
    const periods = [...Object.keys(this.state.periods), period].sort();
    const keep = new Set(periods.slice(-2));
    for (const [key, p] of Object.entries(this.state.counted)) {
      if (!keep.has(p)) delete this.state.counted[key];
    }
  }

  private newlyCrossed(period: string): number[] {
    const { budget } = this.state;
    if (budget === undefined || budget.credits === 0) return [];
    const spent = ORDER_KINDS.reduce(
      (sum, k) => sum + (this.state.periods[period]?.byKind[k]?.credits ?? 0),
      0,
    );
    const percent = (spent / budget.credits) * 100;
    const done = new Set(this.state.alerted[period] ?? []);
    const crossed = budget.alerts.filter((a) => percent >= a && !done.has(a)).sort((a, b) => a - b);
    if (crossed.length > 0) this.state.alerted[period] = [...done, ...crossed].sort((a, b) => a - b);
    return crossed;
  }
}

/** The period `at` counts in: its calendar month (UTC), or `all` for a budget without a period. */
function periodOf(at: number, budget: Budget | undefined): string {
  return usagePeriod(at, budget?.period);
}

function add(tally: Tally, credits: number): void {
  tally.orders += 1;
  tally.credits += credits;
}

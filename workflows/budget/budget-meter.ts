import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import {
  BUDGET_EXCEEDED,
  chargeOrderSignal,
  reserveBudgetUpdate,
  settleRunSignal,
  usageQuery,
  type BudgetMeterInput,
} from '@avatar-pipeline/client/contracts/budget-meter';
import type { BudgetActivities } from '../../activities/budget-activities';
import { WebhookAnnouncer } from '../webhook-announcer';
import { MeterLedger, type MeterLedgerState } from './meter-ledger';

/** Reservations of runs that ended without settling (a failure, a cancel, a start that never ran) are swept. */
const SWEEP = { everyMs: 2 * 60_000, graceMs: 5 * 60_000 };

const { endedRuns } = proxyActivities<BudgetActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute' },
});
// A report that cannot be made is skipped: the next change reports again.
const { reportUsage } = proxyActivities<BudgetActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** Changes are reported as metrics at most this often, so a burst of orders makes one report. */
const REPORT_EVERY = '15 seconds';

/**
 * A tenant's budget meter: one long-lived workflow per tenant (`budget-meter:<tenant>`) keeping
 * its MeterLedger. Starts reserve by update, so a start past a hard budget is refused by the
 * validator before it is written to history, and two starts at once are decided one after the
 * other; orders and settlements arrive as signals, each counted once. Reservations whose run has
 * ended are swept, so a run that never settles does not hold its reservation forever.
 */
export async function budgetMeter(input: BudgetMeterInput): Promise<never> {
  const ledger = input.carried
    ? new MeterLedger(input.carried as MeterLedgerState)
    : MeterLedger.empty(input.tenant);

  /** Changes of the ledger, and how many of them the metrics have been told of. */
  let changes = 1;
  let reported = 0;
  let stopping = false;
  const reporting = (async () => {
    for (;;) {
      await condition(() => stopping || changes > reported);
      if (stopping) return;
      const upTo = changes;
      await reportUsage(ledger.usage(Date.now())).catch(() => undefined);
      reported = upTo;
      await sleep(REPORT_EVERY);
    }
  })();

  const announcing = new Set<Promise<void>>();
  /** The tenant's webhook endpoints hear of alerts as they happen; the meter never waits on them. */
  const announce = (crossed: number[]): void => {
    const at = Date.now();
    const exhausted = ledger.newlyExhausted(at);
    if (crossed.length === 0 && !exhausted) return;
    const { tenant, period, budget, spent, reserved } = ledger.usage(at);
    const figures = { tenant, period, credits: budget?.credits ?? 0, spent, reserved };
    // A new announcer each time: an endpoint the tenant registered since is heard from then on.
    const webhooks = new WebhookAnnouncer({ tenant });
    const told = (async () => {
      for (const percent of crossed) await webhooks.announce('budget.threshold', { ...figures, percent });
      if (exhausted) await webhooks.announce('budget.exhausted', figures);
    })();
    announcing.add(told);
    void told.finally(() => announcing.delete(told));
  };

  setHandler(
    reserveBudgetUpdate,
    (request) => {
      ledger.setBudget(request.budget);
      const answer = ledger.reserve(request, Date.now());
      if (!answer.reserved) throw ApplicationFailure.nonRetryable(answer.reason, BUDGET_EXCEEDED);
      changes++;
      announce([]);
      return answer.usage;
    },
    {
      // Refused here, a start leaves nothing in the meter's history.
      validator: (request) => {
        const refusal = ledger.refusalOf(request, Date.now(), { budget: request.budget });
        if (refusal !== undefined) throw ApplicationFailure.nonRetryable(refusal, BUDGET_EXCEEDED);
      },
    },
  );
  setHandler(chargeOrderSignal, (order) => {
    const { counted, crossed } = ledger.charge(order);
    if (counted) changes++;
    announce(crossed);
  });
  setHandler(settleRunSignal, ({ runId }) => {
    ledger.settle(runId);
    changes++;
  });
  setHandler(usageQuery, () => ledger.usage(Date.now()));

  const sweep = input.sweep ?? SWEEP;
  for (;;) {
    await condition(() => workflowInfo().continueAsNewSuggested, sweep.everyMs);
    if (workflowInfo().continueAsNewSuggested) break;
    const runs = ledger.reservedRuns(Date.now() - sweep.graceMs);
    if (runs.length === 0) continue;
    for (const runId of (await endedRuns({ runIds: runs })).ended) {
      ledger.settle(runId);
      changes++;
    }
  }
  stopping = true;
  await reporting;
  await condition(() => allHandlersFinished() && announcing.size === 0);
  return continueAsNew<typeof budgetMeter>({ ...input, carried: ledger.state });
}

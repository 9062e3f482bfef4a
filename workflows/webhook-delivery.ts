import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhook-activities';
import {
  webhookEventSignal,
  type RedeliveryInput,
  type RetryState,
  type WebhookDeliveryInput,
  type WebhookTarget,
} from '@avatar-pipeline/client/contracts/webhook-delivery';
import type { WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';

/** An event is retried this long (on durable timers) before its delivery is given up. */
export const RETRY_FOR_MS = 3 * 24 * 60 * 60 * 1000;
/** Waits between attempts: 5 s, 30 s, 2 min, 10 min, 30 min, then every hour. */
export const BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
/** The longest wait a receiver's Retry-After can ask for. */
const RETRY_AFTER_CEILING_MS = 3_600_000;
/**
 * Attempts one run makes before it continues as new: each attempt adds about ten history events,
 * so this keeps a run's history in the low thousands whatever the receivers answer.
 */
export const ATTEMPTS_PER_RUN = 50;
/** A delivery workflow whose run ended without its last event (terminated) stops after this long idle. */
const IDLE_FOR = '7 days';
const HISTORY_EVENTS_SOFT_LIMIT = 8_000;

/** One attempt is one activity; the retries are this workflow's timers, so each attempt is logged. */
const attempts = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '40 seconds',
  retry: { maximumAttempts: 1 },
});
const store = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

type Outcome = 'delivered' | 'failed' | 'dropped';
/** The attempts stopped so the run can continue as new; the retries resume from this state. */
type HandOver = { handOver: RetryState };

/** Counts this run's attempts; once spent (or the history is long), retries stop at their next wait. */
class RunBudget {
  private attempts = 0;

  spend(): void {
    this.attempts++;
  }

  spent(): boolean {
    const info = workflowInfo();
    return (
      this.attempts >= ATTEMPTS_PER_RUN ||
      info.continueAsNewSuggested ||
      info.historyLength > HISTORY_EVENTS_SOFT_LIMIT
    );
  }
}

/**
 * Delivers the events of one run (or campaign) to every endpoint subscribed to them, in the
 * order they happened: events arrive by signal, each gets its webhook-id and sequence number
 * here, once, and each target has its own queue, worked front to back. A later event waits while
 * an earlier one to the same target is retried, so one slow endpoint never holds up another.
 * Ends after the source's last event is delivered everywhere (or given up).
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<{ events: number }> {
  const carried = input.carried;
  let received = carried?.received ?? 0;
  let closing = carried?.closing ?? false;
  const inbox: WebhookEnvelope[] = [...(carried?.inbox ?? [])];
  setHandler(webhookEventSignal, ({ event, last }) => {
    received++;
    inbox.push({ ...event, id: `evt_${uuid4()}`, sequence: received, source: input.source });
    if (last) closing = true;
  });

  const budget = new RunBudget();
  const queues = new Map<string, TargetQueue>();
  const queueOf = (target: WebhookTarget, retry?: RetryState): TargetQueue => {
    const key = target.kind === 'endpoint' ? `endpoint:${target.endpointId}` : `callback:${target.url}`;
    let queue = queues.get(key);
    if (!queue) {
      queue = new TargetQueue(input.tenant, target, budget, retry);
      queues.set(key, queue);
    }
    return queue;
  };
  for (const { target, events, retry } of carried?.queues ?? []) {
    for (const e of events) queueOf(target, retry).push(e);
  }
  const allIdle = () => [...queues.values()].every((q) => q.idle());

  for (;;) {
    const woke = await condition(
      () => inbox.length > 0 || budget.spent() || (closing && allIdle()),
      IDLE_FOR,
    );
    if (inbox.length > 0) {
      const event = inbox.shift()!;
      const targets = await store.webhookTargets({
        tenant: input.tenant,
        type: event.type,
        ...(input.callback ? { callback: input.callback } : {}),
      });
      for (const target of targets) queueOf(target).push(event);
      continue;
    }
    if (budget.spent()) {
      // Each queue stops at its next wait (or after its attempt in flight) and hands its state over.
      await condition(() => [...queues.values()].every((q) => !q.busy));
      await continueAsNew<typeof webhookDelivery>({
        ...input,
        carried: {
          received,
          inbox,
          closing,
          queues: [...queues.values()]
            .filter((q) => !q.idle())
            .map((q) => ({
              target: q.target,
              events: q.pending(),
              ...(q.retry ? { retry: q.retry } : {}),
            })),
        },
      });
    }
    if (allIdle() && (closing || !woke)) break;
  }
  return { events: received };
}

/** Sends a delivery from the log again, with its webhook-id, retried like the first time. */
export async function webhookRedelivery(input: RedeliveryInput): Promise<{ outcome: Outcome }> {
  const { tenant, endpointId, deliveryId } = input;
  const { event } = await store.loadDelivery({ tenant, endpointId, deliveryId });
  const target: WebhookTarget = { kind: 'endpoint', endpointId };
  const outcome = await deliverUntilDone(tenant, target, event, true, new RunBudget(), input.retry);
  if (typeof outcome === 'string') return { outcome };
  return continueAsNew<typeof webhookRedelivery>({ tenant, endpointId, deliveryId, retry: outcome.handOver });
}

/** One target's events, sent one at a time in order. */
class TargetQueue {
  private readonly events: WebhookEnvelope[] = [];
  busy = false;

  /**
   * @param retry where the retries of the first event stood when the previous run handed over;
   * it holds the state to hand over again once the budget is spent.
   */
  constructor(
    private readonly tenant: string,
    readonly target: WebhookTarget,
    private readonly budget: RunBudget,
    public retry?: RetryState,
  ) {}

  push(event: WebhookEnvelope): void {
    // A campaign's progress waiting behind a retry is superseded by the newer one.
    const last = this.events.at(-1);
    if (event.type === 'campaign.progress' && last?.type === 'campaign.progress' && this.events.length > 1) {
      this.events[this.events.length - 1] = event;
    } else this.events.push(event);
    if (!this.busy) void this.work();
  }

  pending(): WebhookEnvelope[] {
    return [...this.events];
  }

  idle(): boolean {
    return !this.busy && this.events.length === 0;
  }

  private async work(): Promise<void> {
    this.busy = true;
    try {
      while (this.events.length > 0 && !this.budget.spent()) {
        const outcome = await deliverUntilDone(
          this.tenant,
          this.target,
          this.events[0]!,
          false,
          this.budget,
          this.retry,
        );
        if (typeof outcome !== 'string') {
          this.retry = outcome.handOver;
          return;
        }
        this.retry = undefined;
        this.events.shift();
      }
    } finally {
      this.busy = false;
    }
  }
}

/**
 * Attempts until the target accepts the event (2xx), refuses it for good (gone, disabled, a
 * refused address), or RETRY_FOR_MS has passed; waits between attempts are durable timers. Once
 * the run's budget is spent, a wait ends early and the retry state is handed back instead, for
 * the next run to resume from.
 */
async function deliverUntilDone(
  tenant: string,
  target: WebhookTarget,
  event: WebhookEnvelope,
  redelivery: boolean,
  budget: RunBudget,
  resume?: RetryState,
): Promise<Outcome | HandOver> {
  const firstAt = resume?.firstAt ?? Date.now();
  if (resume && resume.notBefore > Date.now()) await sleep(resume.notBefore - Date.now());
  for (let attempt = resume?.attempt ?? 1; ; attempt++) {
    budget.spend();
    try {
      await attempts.deliverWebhook.executeWithOptions(
        { summary: `${event.type} #${event.sequence} → ${describe(target)} (attempt ${attempt})` },
        [{ tenant, target, event, attempt, at: Date.now(), firstAt, redelivery }],
      );
      return 'delivered';
    } catch (err) {
      if (isCancellation(err)) throw err;
      const failure = err instanceof ActivityFailure ? err.cause : undefined;
      if (failure instanceof ApplicationFailure && failure.nonRetryable) return 'dropped';
      const wait = waitAfter(attempt, failure);
      if (Date.now() + wait - firstAt > RETRY_FOR_MS) {
        await store.webhookGaveUp({ tenant, target, event, at: Date.now(), firstAt });
        return 'failed';
      }
      const notBefore = Date.now() + wait;
      if (await condition(() => budget.spent(), wait)) {
        return { handOver: { attempt: attempt + 1, firstAt, notBefore } };
      }
    }
  }
}

/**
 * The backoff step, or the receiver's Retry-After when it asks for longer (up to
 * RETRY_AFTER_CEILING_MS): a receiver can slow the retries down, never speed them up.
 */
function waitAfter(attempt: number, failure: unknown): number {
  const step = BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)]!;
  const details = failure instanceof ApplicationFailure ? failure.details?.[0] : undefined;
  const retryAfterMs =
    typeof details === 'object' && details !== null && 'retryAfterMs' in details
      ? Number(details.retryAfterMs)
      : NaN;
  if (!Number.isFinite(retryAfterMs)) return step;
  return Math.max(step, Math.min(retryAfterMs, RETRY_AFTER_CEILING_MS));
}

function describe(target: WebhookTarget): string {
  if (target.kind === 'endpoint') return `endpoint ${target.endpointId}`;
  try {
    return `callback ${new URL(target.url).host}`;
  } catch {
    return 'callback';
  }
}

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
  type WebhookDeliveryInput,
  type WebhookTarget,
} from '../src/contracts/webhook-delivery';
import type { WebhookEnvelope } from '../src/contracts/webhook-events';

/** An event is retried this long (on durable timers) before its delivery is given up. */
export const RETRY_FOR_MS = 3 * 24 * 60 * 60 * 1000;
/** Waits between attempts: 5 s, 30 s, 2 min, 10 min, 30 min, then every hour. */
const BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
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

  const queues = new Map<string, TargetQueue>();
  let handingOver = false;
  const queueOf = (target: WebhookTarget): TargetQueue => {
    const key = target.kind === 'endpoint' ? `endpoint:${target.endpointId}` : `callback:${target.url}`;
    let queue = queues.get(key);
    if (!queue) {
      queue = new TargetQueue(input.tenant, target, () => handingOver);
      queues.set(key, queue);
    }
    return queue;
  };
  for (const { target, events } of carried?.queues ?? []) for (const e of events) queueOf(target).push(e);

  for (;;) {
    const woke = await condition(() => inbox.length > 0 || closing || longHistory(), IDLE_FOR);
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
    if (closing || !woke) break;
    // History grows with every attempt: hand the queues over once each target's current attempt is done.
    handingOver = true;
    await condition(() => [...queues.values()].every((q) => !q.busy));
    await continueAsNew<typeof webhookDelivery>({
      ...input,
      carried: {
        received,
        inbox,
        closing,
        queues: [...queues.values()].map((q) => ({ target: q.target, events: q.pending() })),
      },
    });
  }
  await condition(() => [...queues.values()].every((q) => q.idle()));
  return { events: received };
}

/** Sends a delivery from the log again, with its webhook-id, retried like the first time. */
export async function webhookRedelivery(input: RedeliveryInput): Promise<{ outcome: Outcome }> {
  const { event } = await store.loadDelivery(input);
  const target: WebhookTarget = { kind: 'endpoint', endpointId: input.endpointId };
  return { outcome: await deliverUntilDone(input.tenant, target, event, true) };
}

/** One target's events, sent one at a time in order. */
class TargetQueue {
  private readonly events: WebhookEnvelope[] = [];
  busy = false;

  constructor(
    private readonly tenant: string,
    readonly target: WebhookTarget,
    private readonly handingOver: () => boolean,
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
      while (this.events.length > 0 && !this.handingOver()) {
        await deliverUntilDone(this.tenant, this.target, this.events[0]!, false);
        this.events.shift();
      }
    } finally {
      this.busy = false;
    }
  }
}

/**
 * Attempts until the target accepts the event (2xx), refuses it for good (gone, disabled, a
 * refused address), or RETRY_FOR_MS has passed; waits between attempts are durable timers.
 */
async function deliverUntilDone(
  tenant: string,
  target: WebhookTarget,
  event: WebhookEnvelope,
  redelivery: boolean,
): Promise<Outcome> {
  const firstAt = Date.now();
  for (let attempt = 1; ; attempt++) {
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
      await sleep(wait);
    }
  }
}

/** The backoff step, or the receiver's Retry-After when it gave one (up to an hour). */
function waitAfter(attempt: number, failure: unknown): number {
  const step = BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)]!;
  const details = failure instanceof ApplicationFailure ? failure.details?.[0] : undefined;
  const retryAfterMs =
    typeof details === 'object' && details !== null && 'retryAfterMs' in details
      ? Number(details.retryAfterMs)
      : NaN;
  return Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? Math.min(retryAfterMs, 3_600_000) : step;
}

function describe(target: WebhookTarget): string {
  if (target.kind === 'endpoint') return `endpoint ${target.endpointId}`;
  try {
    return `callback ${new URL(target.url).host}`;
  } catch {
    return 'callback';
  }
}

function longHistory(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > HISTORY_EVENTS_SOFT_LIMIT;
}

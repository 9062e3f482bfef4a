import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  CancellationScope,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  proxyLocalActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhook-activities';
import {
  deliveryWorkflowId,
  webhookEventSignal,
  type WebhookSource,
} from '@avatar-pipeline/client/contracts/webhook-delivery';
import type {
  AnnouncedEvent,
  WebhookEventData,
  WebhookEventType,
} from '@avatar-pipeline/client/contracts/webhook-events';
import { webhookDelivery } from './webhook-delivery';

const checks = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * Where a run or campaign announces what happens to it, as it happens. `announce` hands the event
 * to the source's delivery workflow (started with the first event, outliving the source) and
 * returns: delivery, its retries and its order are that workflow's business. A source whose
 * tenant has no endpoint and whose request named no callbackUrl when it first announced starts
 * no delivery workflow at all, and its events go nowhere. Never fails the source, even while it
 * is being cancelled.
 */
export class WebhookAnnouncer {
  private lane: Promise<string | undefined> | undefined;

  constructor(private readonly source: WebhookSource) {}

  async announce<T extends WebhookEventType>(
    type: T,
    data: WebhookEventData<T>,
    options: { last?: boolean } = {},
  ): Promise<void> {
    const event = { type, timestamp: new Date().toISOString(), data } as AnnouncedEvent;
    await CancellationScope.nonCancellable(async () => {
      this.lane ??= this.open();
      const lane = await this.lane;
      if (lane === undefined) return;
      try {
        await getExternalWorkflowHandle(lane).signal(webhookEventSignal, {
          event,
          ...(options.last ? { last: true } : {}),
        });
      } catch (err) {
        log.warn('could not hand a webhook event to its delivery', { type, error: messageOf(err) });
      }
    });
  }

  /** Whether this source's events go anywhere (asks once, at the first call or announcement). */
  async subscribed(): Promise<boolean> {
    return CancellationScope.nonCancellable(async () => {
      this.lane ??= this.open();
      return (await this.lane) !== undefined;
    });
  }

  private async open(): Promise<string | undefined> {
    const source = workflowInfo().workflowId;
    try {
      const { subscribed } = await checks.webhookSubscribed(this.source);
      if (!subscribed) return undefined;
      const workflowId = deliveryWorkflowId(source);
      await startChild(webhookDelivery, {
        workflowId,
        args: [{ ...this.source, source }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `webhook events of ${source}`,
      }).catch((err: unknown) => {
        // A campaign that continued as new finds its delivery workflow still running: it goes on with it.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      });
      return workflowId;
    } catch (err) {
      log.warn('could not start webhook delivery', { error: messageOf(err) });
      return undefined;
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

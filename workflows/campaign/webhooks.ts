import { condition, sleep } from '@temporalio/workflow';
import type { CampaignProgress } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { tenantOf } from '@avatar-pipeline/client/contracts/webhook-delivery';
import { WebhookAnnouncer } from '../webhook-announcer';

/** campaign.progress is sent at most this often. */
const PROGRESS_EVERY = '30 seconds';

/**
 * A campaign's webhook events: its progress while it changes (at most one event every 30
 * seconds, the latest state at sending) and its completion. A campaign of a tenant without
 * endpoints announces nothing and keeps no timer for it.
 */
export class CampaignWebhooks {
  private readonly announcer: WebhookAnnouncer;
  private changes = 0;
  private stopped = false;

  constructor(input: object) {
    this.announcer = new WebhookAnnouncer({ tenant: tenantOf(input) });
  }

  /** Tells the progress loop that the progress changed. */
  changed(): void {
    this.changes++;
  }

  /** Announces progress as it changes until the run ends; run it alongside the campaign. */
  async announceProgress(progress: () => CampaignProgress): Promise<void> {
    if (!(await this.announcer.subscribed())) return;
    let announced = 0;
    while (!this.stopped) {
      await condition(() => this.stopped || this.changes !== announced);
      if (this.stopped) break;
      announced = this.changes;
      const p = progress();
      await this.announcer.announce('campaign.progress', {
        campaignId: p.campaignId,
        state: p.state,
        total: p.total,
        counts: { ...p.counts },
      });
      await sleep(PROGRESS_EVERY);
    }
  }

  async completed(
    outcome: Pick<CampaignProgress, 'campaignId' | 'total' | 'counts'> & { state: 'completed' | 'cancelled' },
  ): Promise<void> {
    this.stopped = true;
    await this.announcer.announce(
      'campaign.completed',
      {
        campaignId: outcome.campaignId,
        state: outcome.state,
        total: outcome.total,
        counts: { ...outcome.counts },
      },
      { last: true },
    );
  }

  /** The run continues as new: its successor announces from here on. */
  stop(): void {
    this.stopped = true;
  }
}

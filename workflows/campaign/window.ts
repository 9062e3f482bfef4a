import { log, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { CampaignActivities } from '../../activities/campaign-activities';
import { answersBetween, DEFAULT_WINDOW_TUNING, initialWindow, nextWindow } from './window-controller';
import type {
  ProviderQueueReading,
  WindowState,
  WindowTuning,
} from '@avatar-pipeline/client/contracts/campaign/window-state';
import type {
  CampaignWindowSettings,
  CampaignWindowView,
} from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { campaignPart, tenantSample, tenantTuning, type TenantShareOfWindow } from './tenant-window';

const { observeProviderQueue } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '10 seconds',
  // A sample that cannot be read is skipped (the window keeps its size); the next one will do.
  retry: { maximumAttempts: 2, initialInterval: '1 second' },
});

/**
 * The campaign's in-flight window: fixed, or sized from the provider's signals by the pure
 * controller (window-controller.ts) each time the campaign samples them. The size and
 * its reason travel through continue-as-new, are shown in the campaign's progress and as the
 * workflow's current details in the Temporal UI.
 */
export class CampaignWindow {
  private state: WindowState | undefined;
  private readonly tuning: WindowTuning;
  private lastReading: ProviderQueueReading | undefined;
  private completions = 0;
  /** Workflow time of the previous reading (deterministic: the workflow's clock). */
  private lastReadAt: number | undefined;

  /** The tenant's weight and open campaigns: the auto window is the tenant's (tenant-window.ts). */
  private readonly share: TenantShareOfWindow;

  constructor(
    private readonly settings: CampaignWindowSettings,
    carried?: WindowState,
    /** The campaign's fairness key (its tenant) and weight; without a key the campaign is alone in it. */
    private readonly fairness: { key?: string; weight: number } = { weight: 1 },
  ) {
    // A campaign started before tenants (no key) keeps the window it had, whatever its weight:
    // its replays must start the same subjects.
    this.share = {
      weight: fairness.key !== undefined ? fairness.weight : 1,
      campaigns: carried?.campaignsSharing ?? 1,
    };
    this.tuning =
      settings.mode === 'auto'
        ? { ...DEFAULT_WINDOW_TUNING, ...settings.tuning, cap: settings.cap }
        : DEFAULT_WINDOW_TUNING;
    if (settings.mode === 'auto') this.state = carried ?? initialWindow(this.tuning);
    this.showDetails();
  }

  get auto(): boolean {
    return this.settings.mode === 'auto';
  }

  get size(): number {
    return this.settings.mode === 'fixed'
      ? this.settings.size
      : campaignPart(this.state!.size, this.share, this.tuning);
  }

  get sampleEveryMs(): number {
    return this.settings.mode === 'auto' ? this.settings.sampleEveryMs : 0;
  }

  /** A subject ended (a completion, for the next sample). */
  ended(): void {
    this.completions++;
  }

  /** Reads the provider's and the workers' signals and moves the window once. */
  async sample(
    subjects: { inFlight: number; waiting: number },
    queues: { providerTaskQueue: string; workflowTaskQueue: string },
  ): Promise<void> {
    if (!this.state) return;
    let reading: Awaited<ReturnType<typeof observeProviderQueue>>;
    try {
      reading = await observeProviderQueue.executeWithOptions(
        { summary: `read the provider queue for the in-flight window (${this.size})` },
        [{ ...queues, ...(this.fairness.key !== undefined ? { fairnessKey: this.fairness.key } : {}) }],
      );
    } catch (err) {
      log.warn('in-flight window: signals not read; the window keeps its size', {
        error: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    const answers = answersBetween(this.lastReading, reading);
    const readAt = Date.now();
    // Answers between two readings of one process cover the time between them; none otherwise.
    const elapsedMs =
      this.lastReading && this.lastReading.tallyId === reading.tallyId && this.lastReadAt !== undefined
        ? readAt - this.lastReadAt
        : undefined;
    this.lastReading = reading;
    this.lastReadAt = readAt;
    const previous = this.state;
    const previousSize = this.size;
    if (reading.campaignsSharing !== undefined) this.share.campaigns = Math.max(1, reading.campaignsSharing);
    const next = nextWindow(
      previous,
      tenantSample(
        {
          backlogCount: reading.backlogCount,
          backlogAgeMs: reading.backlogAgeMs,
          ...answers,
          completions: this.completions,
          ...subjects,
          dispatchRate: reading.dispatchRate,
          ...(elapsedMs !== undefined ? { elapsedMs } : {}),
          ...(reading.quotaRps !== undefined ? { quotaRps: reading.quotaRps } : {}),
          ...(reading.workerCapacity !== undefined ? { workerCapacity: reading.workerCapacity } : {}),
          ...(reading.workflowBacklogAgeMs !== undefined
            ? { workerBacklogMs: reading.workflowBacklogAgeMs }
            : {}),
        },
        this.share,
      ),
      tenantTuning(this.tuning, this.share),
    );
    this.state = { ...next, ...(this.share.campaigns > 1 ? { campaignsSharing: this.share.campaigns } : {}) };
    this.completions = 0;
    if (this.size !== previousSize || this.state.reason !== previous.reason) this.showDetails();
  }

  view(): CampaignWindowView {
    if (this.settings.mode === 'fixed')
      return {
        mode: 'fixed',
        size: this.settings.size,
        reason: 'fixed',
        detail: `fixed at ${this.settings.size}`,
      };
    const state = this.state!;
    const { weight, campaigns } = this.share;
    const shared =
      weight === 1 && campaigns === 1
        ? ''
        : `; the tenant's window is ${Math.round(state.size * weight)} (${state.size} per unit of weight × ${weight}), this campaign holds its part of ${campaigns} campaign(s): `;
    return {
      mode: 'auto',
      size: this.size,
      cap: this.tuning.cap,
      reason: state.reason,
      detail: shared ? `${shared.slice(2)}${state.detail}` : state.detail,
      ...(state.providerRps !== undefined && state.quotaRps !== undefined
        ? { providerRps: state.providerRps, quotaRps: state.quotaRps }
        : {}),
    };
  }

  carry(): WindowState | undefined {
    return this.state;
  }

  private showDetails(): void {
    const view = this.view();
    setCurrentDetails(`**In-flight window ${view.size}** (${view.mode}, ${view.reason}): ${view.detail}`);
  }
}

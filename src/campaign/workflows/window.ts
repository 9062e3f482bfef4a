import { log, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { CampaignActivities } from '../activities';
import { answersBetween, DEFAULT_WINDOW_TUNING, initialWindow, nextWindow } from './window-controller';
import type { ProviderQueueReading, WindowState, WindowTuning } from '../contracts/window-state';
import type { CampaignWindowSettings, CampaignWindowView } from '../contracts/campaign-state';

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

  constructor(
    private readonly settings: CampaignWindowSettings,
    carried?: WindowState,
  ) {
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
    return this.settings.mode === 'fixed' ? this.settings.size : this.state!.size;
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
        { summary: `read the provider queue for the in-flight window (${this.state.size})` },
        [queues],
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
    this.state = nextWindow(
      previous,
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
      this.tuning,
    );
    this.completions = 0;
    if (this.state.size !== previous.size || this.state.reason !== previous.reason) this.showDetails();
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
    return {
      mode: 'auto',
      size: state.size,
      cap: this.tuning.cap,
      reason: state.reason,
      detail: state.detail,
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

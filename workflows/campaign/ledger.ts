import type {
  SubjectOutcome,
  CarriedLedger,
  LedgerOutcomes,
  SubjectCounts,
  SubjectStatus,
} from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { STATUS_CODES, statusOfCode } from '@avatar-pipeline/client/contracts/campaign/campaign-state';

export type { SubjectOutcome };

const RUNNING = 'R';
const MAX_SAMPLES = 64;
const MAX_RECENT_FAILURES = 5;
/** Long provider messages are cut here: the state travels through every continue-as-new. */
export const MAX_ERROR_LENGTH = 500;

/**
 * The campaign's ledger: which subjects are pending, running, finished and how; what to start
 * next (retries first, then the manifest in order); the figures for progress. Pure and
 * deterministic, so it lives in the workflow and travels compactly through continue-as-new.
 */
export class CampaignLedger {
  private readonly statuses: string[];
  private readonly modelIds: number[];
  private readonly avatarCounts: number[];
  private readonly errors: Record<string, string>;
  private readonly attempts: Record<string, number>;
  private cursor: number;
  private readonly retryQueue: number[];
  private samples: [number, number][];
  private recentFailures: { subjectId: string; error: string; index?: number }[];
  paused: boolean;
  /** Why the campaign paused itself (its budget); cleared on resume. */
  pausedFor: string | undefined;
  cancelled: boolean;
  readonly run: number;
  readonly startedAtMs: number;

  constructor(
    readonly total: number,
    nowMs: number,
    carried?: CarriedLedger,
  ) {
    const outcomes = carried?.outcomes;
    this.statuses = outcomes ? [...outcomes.statuses.replaceAll(RUNNING, '.')] : Array(total).fill('.');
    this.modelIds = outcomes ? [...outcomes.modelIds] : Array(total).fill(0);
    this.avatarCounts = outcomes ? [...outcomes.avatarCounts] : Array(total).fill(0);
    this.errors = { ...(outcomes?.errors ?? {}) };
    this.attempts = { ...(outcomes?.attempts ?? {}) };
    this.cursor = carried?.cursor ?? 0;
    this.retryQueue = [...(carried?.retryQueue ?? [])];
    this.samples = carried?.samples ? [...carried.samples] : [[nowMs, 0]];
    this.recentFailures = [...(carried?.recentFailures ?? [])];
    this.paused = carried?.paused ?? false;
    this.pausedFor = carried?.pausedFor;
    this.cancelled = carried?.cancelled ?? false;
    this.run = (carried?.run ?? 0) + 1;
    this.startedAtMs = carried?.startedAtMs ?? nowMs;
    // Subjects started by earlier runs are still running: they report their end to this run.
    for (const [index] of carried?.running ?? []) this.statuses[index] = RUNNING;
  }

  /** Subjects still to start (new ones and queued retries). */
  hasWork(): boolean {
    return this.waiting() > 0;
  }

  /** How many subjects are still to start. */
  waiting(): number {
    return this.cancelled ? 0 : this.retryQueue.length + (this.total - this.cursor);
  }

  /** The next subject to start: queued retries first, then the manifest in order. */
  takeNext(): number {
    const index = this.retryQueue.shift() ?? this.cursor++;
    this.statuses[index] = RUNNING;
    this.attempts[index] = (this.attempts[index] ?? 0) + 1;
    return index;
  }

  /** A subject taken but never started (the campaign was cancelled meanwhile). */
  putBack(index: number): void {
    this.statuses[index] = '.';
    this.attempts[index] = Math.max(0, (this.attempts[index] ?? 1) - 1);
    if (this.attempts[index] === 0) delete this.attempts[index];
    this.retryQueue.unshift(index);
  }

  finished(index: number, subjectId: string, outcome: SubjectOutcome, nowMs: number): void {
    this.statuses[index] = STATUS_CODES[outcome.status];
    if ('modelId' in outcome && outcome.modelId !== undefined) this.modelIds[index] = outcome.modelId;
    this.avatarCounts[index] = 'avatarCount' in outcome ? outcome.avatarCount : 0;
    if ('error' in outcome) {
      const error = truncate(outcome.error);
      this.errors[index] = error;
      if (outcome.status === 'FAILED')
        this.recentFailures = [{ subjectId, error, index }, ...this.recentFailures].slice(
          0,
          MAX_RECENT_FAILURES,
        );
    } else {
      delete this.errors[index];
    }
    this.samples.push([nowMs, this.finishedCount()]);
    if (this.samples.length > MAX_SAMPLES) this.samples = this.samples.slice(-MAX_SAMPLES);
  }

  /** Cancelling: nothing more starts; subjects never started are cancelled. */
  cancelRemaining(): void {
    this.cancelled = true;
    for (const index of this.retryQueue.splice(0)) this.statuses[index] = STATUS_CODES.CANCELLED;
    for (; this.cursor < this.total; this.cursor++) this.statuses[this.cursor] = STATUS_CODES.CANCELLED;
  }

  /** Which of `indexes` (default: every failed or cancelled subject) can run again, and why not the others. */
  retryable(indexes?: number[]): { accepted: number[]; refused: string[] } {
    if (indexes === undefined) {
      const accepted = this.statuses
        .map((code, index) => (code === 'F' || code === 'C' ? index : -1))
        .filter((index) => index >= 0);
      return { accepted, refused: [] };
    }
    const refused: string[] = [];
    const accepted: number[] = [];
    for (const index of new Set(indexes)) {
      if (!Number.isInteger(index) || index < 0 || index >= this.total) {
        refused.push(`subject #${index} is not in the manifest`);
        continue;
      }
      const status = this.statusOf(index);
      if (status === 'FAILED' || status === 'CANCELLED') accepted.push(index);
      else refused.push(`subject #${index} is ${status}; only failed or cancelled subjects can be retried`);
    }
    return { accepted, refused };
  }

  /** Queues subjects to run again (after retryable() accepted them). */
  queueRetry(indexes: number[]): void {
    for (const index of indexes) {
      this.attempts[index] ??= 1; // carried state keeps only repeated attempts
      this.statuses[index] = '.';
      delete this.errors[index];
      this.retryQueue.push(index);
    }
    if (indexes.length > 0) this.cancelled = false;
  }

  statusOf(index: number): SubjectStatus {
    const code = this.statuses[index] ?? '.';
    return code === RUNNING ? 'RUNNING' : statusOfCode(code);
  }

  counts(): SubjectCounts {
    const counts: SubjectCounts = { pending: 0, running: 0, done: 0, partial: 0, failed: 0, cancelled: 0 };
    for (const code of this.statuses) {
      if (code === RUNNING) counts.running++;
      else if (code === 'D') counts.done++;
      else if (code === 'P') counts.partial++;
      else if (code === 'F') counts.failed++;
      else if (code === 'C') counts.cancelled++;
      else counts.pending++;
    }
    return counts;
  }

  /** Subjects finished per minute over the recent samples (0 until two samples exist). */
  throughputPerMinute(nowMs: number): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last[1] <= first[1]) return 0;
    const spanMs = Math.max(nowMs, last[0]) - first[0];
    return spanMs > 0 ? ((last[1] - first[1]) * 60_000) / spanMs : 0;
  }

  /** Time to finish the pending and running subjects at the current rate; undefined while unknown. */
  etaMs(nowMs: number): number | undefined {
    const { pending, running } = this.counts();
    const remaining = this.cancelled ? running : pending + running;
    if (remaining === 0) return 0;
    const rate = this.throughputPerMinute(nowMs);
    return rate > 0 ? Math.round((remaining / rate) * 60_000) : undefined;
  }

  failures(): { subjectId: string; error: string }[] {
    return this.recentFailures.map(({ subjectId, error }) => ({ subjectId, error }));
  }

  /**
   * Erased subjects leave the recent failures (their outcome stays, under their index only).
   * Answers the ids dropped, so the caller can drop them wherever else it shows them.
   */
  forgetFailures(indexes: ReadonlySet<number>): string[] {
    const dropped = this.recentFailures.filter((f) => f.index !== undefined && indexes.has(f.index));
    this.recentFailures = this.recentFailures.filter((f) => !dropped.includes(f));
    return dropped.map((f) => f.subjectId);
  }

  outcomes(): LedgerOutcomes {
    return {
      statuses: this.statuses.join('').replaceAll(RUNNING, '.'),
      modelIds: [...this.modelIds],
      avatarCounts: [...this.avatarCounts],
      errors: { ...this.errors },
      attempts: Object.fromEntries(Object.entries(this.attempts).filter(([, n]) => n > 1)),
    };
  }

  carry(): CarriedLedger {
    return {
      run: this.run,
      cursor: this.cursor,
      retryQueue: [...this.retryQueue],
      outcomes: this.outcomes(),
      paused: this.paused,
      ...(this.pausedFor !== undefined ? { pausedFor: this.pausedFor } : {}),
      cancelled: this.cancelled,
      startedAtMs: this.startedAtMs,
      samples: this.samples.slice(-8),
      recentFailures: [...this.recentFailures],
    };
  }

  private finishedCount(): number {
    let n = 0;
    for (const code of this.statuses) if (code !== '.' && code !== RUNNING) n++;
    return n;
  }
}

function truncate(text: string): string {
  return text.length <= MAX_ERROR_LENGTH ? text : `${text.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}

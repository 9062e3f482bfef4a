import type { CampaignProgress, CampaignSummary } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { progressBar } from './live-view-frame';
import { printable, writeLines } from './printable';

const ESC = '\u001b[';

export function formatEta(ms: number | undefined): string {
  if (ms === undefined) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** The live view's lines for one progress snapshot. Pure, so it can be tested. */
function renderCampaignFrame(p: CampaignProgress | undefined, campaignId: string, width = 30): string[] {
  if (!p) return [`${campaignId}  ·  starting`, '  waiting for a worker to pick the campaign up…'];
  const { counts } = p;
  const finished = counts.done + counts.partial + counts.failed + counts.cancelled;
  const lines = [
    `${p.campaignId}  ·  ${p.state}  ·  ${formatEta(p.elapsedMs)} elapsed  ·  run ${p.run}`,
    `  ${progressBar(p.total ? finished / p.total : 0, width)} ${finished}/${p.total} finished`,
    `  done ${counts.done}   partial ${counts.partial}   failed ${counts.failed}   cancelled ${counts.cancelled}`,
    `  in flight ${counts.running}/${p.window.size}   pending ${counts.pending}`,
    `  window ${p.window.size} (${p.window.mode}${p.window.cap !== undefined ? `, cap ${p.window.cap}` : ''}): ${p.window.reason} · ${p.window.detail}`,
    `  rate ${p.throughputPerMinute.toFixed(1)}/min   ETA ${formatEta(p.etaMs)}`,
  ];
  for (const failure of p.recentFailures.slice(0, 3))
    lines.push(`  ✗ ${failure.subjectId}: ${failure.error}`);
  return lines;
}

/** One plain line for logs and pipes. */
export function describeCampaignProgress(p: CampaignProgress): string {
  const c = p.counts;
  return (
    `state=${p.state} done=${c.done} partial=${c.partial} failed=${c.failed} cancelled=${c.cancelled} ` +
    `running=${c.running}${p.awaitingReview ? ` awaiting-review=${p.awaitingReview.count}` : ''} ` +
    `window=${p.window.size} (${p.window.reason}) pending=${c.pending} total=${p.total} rate=${p.throughputPerMinute.toFixed(1)}/min ` +
    `eta=${formatEta(p.etaMs)}`
  );
}

export interface CampaignView {
  update(progress: CampaignProgress | undefined): void;
  finish(): void;
  readonly intervalMs: number;
}

/** Redrawn in place on a terminal, cut to its width. */
class TerminalCampaignView implements CampaignView {
  readonly intervalMs = 500;
  private drawn = 0;
  private last: CampaignProgress | undefined;

  constructor(
    private readonly stream: NodeJS.WritableStream & { columns?: number },
    private readonly campaignId: string,
  ) {}

  update(progress: CampaignProgress | undefined): void {
    this.last = progress ?? this.last;
    const columns = Math.max(20, (this.stream.columns || 80) - 1);
    const lines = renderCampaignFrame(this.last, this.campaignId)
      .map(printable)
      .map((line) => (line.length > columns ? `${line.slice(0, columns - 1)}…` : line));
    let out = this.drawn > 0 ? `${ESC}${this.drawn}A\r` : '';
    for (const line of lines) out += `${ESC}2K${line}\n`;
    if (lines.length < this.drawn) out += `${ESC}0J`;
    this.stream.write(out);
    this.drawn = lines.length;
  }

  finish(): void {}
}

/** A line per change, at most every few seconds. */
class LineCampaignView implements CampaignView {
  readonly intervalMs = 2_000;
  private lastLine = '';

  constructor(private readonly stream: NodeJS.WritableStream) {}

  update(progress: CampaignProgress | undefined): void {
    if (!progress) return;
    const line = describeCampaignProgress(progress);
    if (line === this.lastLine) return;
    this.lastLine = line;
    writeLines(this.stream, line);
  }

  finish(): void {}
}

export function campaignViewFor(
  stream: NodeJS.WriteStream,
  campaignId: string,
  env: NodeJS.ProcessEnv = process.env,
): CampaignView {
  return stream.isTTY && env.TERM !== 'dumb'
    ? new TerminalCampaignView(stream, campaignId)
    : new LineCampaignView(stream);
}

export function summarize(summary: CampaignSummary): string {
  const lines = [
    `${summary.workflowId}: ${summary.status.toLowerCase()}, ${summary.total} subjects: ${summary.succeeded - summary.partial} done, ${summary.partial} partial, ${summary.failed} failed, ${summary.cancelled} cancelled`,
  ];
  for (const s of summary.subjects) {
    if (s.status === 'DONE') continue;
    lines.push(`  ${s.subjectId}: ${s.status}${s.error ? ` (${s.error})` : ''}`);
  }
  return lines.join('\n');
}

/**
 * Benchmark: a campaign whose every subject requires review, beside the same campaign without
 * review, in one run, on the same stack: the provider's accepted request rate, while reviews are
 * pending and over the steady part, of each. A reviewer script approves each waiting run once it
 * has waited `--review-delay` seconds (a person's pace), in batches (POST …/reviews' own code,
 * submitCampaignReviews), polling the listing of runs awaiting review.
 *
 *   npm run build && node dist/bench/campaign-review.js [--subjects 50] [--styles 2]
 *     [--training 90] [--generation 20] [--rps 4] [--review-delay 60] [--time-scale 0.25]
 *
 * Full-scale figures (training 90 s, generation 20 s, a quota of R requests/s), every duration
 * multiplied by --time-scale and the quota divided by it (bench/campaign-scale.ts): rates are
 * printed in full-scale requests per second. The auto window on both campaigns.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { submitCampaignReviews } from '@avatar-pipeline/client/client/campaign-reviews';
import { listPipelines } from '@avatar-pipeline/client/client/list-pipelines';
import { numberArg } from './cli-args';
import { catalogStyles, MIDDLE_PART, scaled, steadyPart, subjectSeconds, type Scale } from './campaign-scale';
import {
  launchCampaign,
  loadLine,
  markdownTable,
  openContext,
  simulatorOptions,
  startCampaignWorker,
  type Context,
} from './campaign-scenarios';
import { freshSimulator, RateSampler } from './campaign-stack';

interface Outcome {
  label: string;
  done: number;
  makespanS: number;
  requests: number;
  limited: number;
  /**
   * Full-scale accepted requests/s: steady part, middle 10–90%, while the provider work lasts
   * (from one subject's time to 90% of the requests sent), and the same while a review was pending.
   */
  steadyRps: number;
  middleRps: number;
  workRps: number;
  pendingRps?: number;
  /** Full-scale seconds from the start until 90% of the requests were sent. */
  workS: number;
  /** Share of the makespan during which at least one review was pending. */
  pendingShare?: number;
  maxPending?: number;
  approved?: number;
}

/** Approves each run awaiting review once it has waited `waitMs`; records when reviews were pending. */
class Reviewer {
  private readonly seen = new Map<string, number>();
  readonly pendingSpans: [number, number][] = [];
  maxPending = 0;
  approved = 0;
  private stopped = false;

  constructor(
    private readonly context: Context,
    private readonly campaign: CampaignHandle,
    private readonly waitMs: number,
    private readonly everyMs: number,
  ) {}

  async run(): Promise<void> {
    const { client } = this.context.stack;
    let pendingSince: number | undefined;
    while (!this.stopped) {
      const now = Date.now();
      const waiting = await listPipelines(client, {
        campaignId: this.campaign.campaignId,
        status: 'awaiting-review',
        limit: 1000,
      });
      for (const run of waiting) if (!this.seen.has(run.workflowId)) this.seen.set(run.workflowId, now);
      this.maxPending = Math.max(this.maxPending, waiting.length);
      if (waiting.length > 0 && pendingSince === undefined) pendingSince = now;
      if (waiting.length === 0 && pendingSince !== undefined) {
        this.pendingSpans.push([pendingSince, now]);
        pendingSince = undefined;
      }
      const due = waiting.filter((run) => now - this.seen.get(run.workflowId)! >= this.waitMs);
      for (let from = 0; from < due.length; from += 100) {
        const reviews = due
          .slice(from, from + 100)
          .map(({ workflowId }) => ({ workflowId, decision: 'approve' as const }));
        const results = await submitCampaignReviews(
          client,
          this.campaign.campaignId,
          { reviews },
          {
            reviewer: { via: 'bench' },
          },
        );
        this.approved += results.filter((r) => r.effect === 'decided').length;
      }
      await delay(this.everyMs);
    }
    if (pendingSince !== undefined) this.pendingSpans.push([pendingSince, Date.now()]);
  }

  stop(): void {
    this.stopped = true;
  }
}

async function runCampaign(
  context: Context,
  label: string,
  review: { delayS: number } | undefined,
): Promise<Outcome> {
  const { scale } = context;
  const s = scale.timeScale;
  const sim = await freshSimulator(simulatorOptions(scale));
  const worker = await startCampaignWorker(context, sim);
  const rates = new RateSampler(sim);
  try {
    const started = Date.now();
    rates.start();
    const campaign = await launchCampaign(
      context,
      worker,
      scale.subjects,
      { kind: 'auto' },
      review ? { review: { required: true } } : {},
      review ? 'r' : 'n',
    );
    const reviewer = review ? new Reviewer(context, campaign, review.delayS * 1000 * s, 1000 * s) : undefined;
    const reviewing = reviewer?.run();
    const log = setInterval(
      () =>
        process.stderr.write(
          `  ${label}: ${((Date.now() - started) / 1000).toFixed(0)} s, ${sim.stats().requests.total} requests` +
            `${reviewer ? `, ${reviewer.approved} approved` : ''}\n`,
        ),
      30_000,
    );
    const summary = await campaign.result().finally(() => clearInterval(log));
    reviewer?.stop();
    await reviewing;
    rates.stop();
    const ended = Date.now();
    const makespanS = (ended - started) / 1000 / s;
    const steady = steadyPart(makespanS, subjectSeconds(scale));
    // The provider work's part of the run: until 90% of its requests were sent. After it, the
    // campaign waits (for its last generations, or for people), and no window could send more.
    const work = rates.shareAtAccepted(0.9);
    const stats = sim.stats();
    const outcome: Outcome = {
      label,
      done: summary.subjects.filter((x) => x.status === 'DONE').length,
      makespanS,
      requests: stats.requests.total,
      limited: stats.rateLimited,
      steadyRps: rates.acceptedRate(steady.from, steady.to) * s,
      middleRps: rates.acceptedRate(MIDDLE_PART.from, MIDDLE_PART.to) * s,
      workRps: rates.acceptedRate(steady.from, work) * s,
      workS: work * makespanS,
    };
    if (reviewer) {
      // The longest span with a review pending, as shares of the run; its accepted rate.
      const spans = reviewer.pendingSpans.map(
        ([a, b]) => [(a - started) / (ended - started), (b - started) / (ended - started)] as const,
      );
      const longest = spans.reduce((best, span) => (span[1] - span[0] > best[1] - best[0] ? span : best), [
        0, 0,
      ] as const);
      outcome.pendingRps =
        rates.acceptedRate(Math.max(longest[0], steady.from), Math.min(longest[1], work)) * s;
      outcome.pendingShare = spans.reduce((sum, [a, b]) => sum + (b - a), 0);
      outcome.maxPending = reviewer.maxPending;
      outcome.approved = reviewer.approved;
    }
    return outcome;
  } finally {
    await worker.worker.stop();
    await sim.stop();
  }
}

async function main(): Promise<void> {
  const argv = process.argv;
  const scale: Scale = {
    subjects: numberArg(argv, 'subjects', 50),
    styles: catalogStyles(numberArg(argv, 'styles', 2)),
    trainingS: numberArg(argv, 'training', 90),
    generationS: numberArg(argv, 'generation', 20),
    rps: numberArg(argv, 'rps', 4),
    timeScale: numberArg(argv, 'time-scale', 0.25),
  };
  const reviewDelayS = numberArg(argv, 'review-delay', 60);
  const say = (line = '') => console.log(line);
  const context = await openContext(scale, say);
  try {
    say(
      `Campaign with review beside without: ${scale.subjects} subjects × ${scale.styles.length} styles, ` +
        `training ${scale.trainingS} s, generation ${scale.generationS} s, quota ${scale.rps} requests/s (full scale; ` +
        `run at ×${scale.timeScale}: ${scaled(scale).rps} requests/s of wall time), auto window; the reviewer approves ` +
        `each run ${reviewDelayS} s after it starts waiting. Node ${process.version}.`,
    );
    say(`Load before: ${loadLine()}.`);
    process.stderr.write('without review…\n');
    const off = await runCampaign(context, 'without review', undefined);
    process.stderr.write('with review…\n');
    const on = await runCampaign(context, 'with review', { delayS: reviewDelayS });
    say(`Load after: ${loadLine()}.`);
    const rps = (x: number | undefined) =>
      x === undefined ? '-' : `${x.toFixed(2)}/s (${((x / scale.rps) * 100).toFixed(0)}% of R)`;
    say(
      markdownTable(
        [off, on].map((o) => ({
          campaign: o.label,
          done: `${o.done}/${scale.subjects}`,
          makespan: `${o.makespanS.toFixed(0)} s`,
          'steady accepted': rps(o.steadyRps),
          '10–90% accepted': rps(o.middleRps),
          'while the work lasts': `${rps(o.workRps)} (to ${o.workS.toFixed(0)} s)`,
          'while the work lasts and a review was pending': rps(o.pendingRps),
          'reviews pending (max; share of run)':
            o.maxPending === undefined
              ? '-'
              : `${o.maxPending}; ${((o.pendingShare ?? 0) * 100).toFixed(0)}%`,
          '429s': `${o.limited} of ${o.requests}`,
        })),
      ),
    );
    const ratio = (on.pendingRps ?? 0) / off.workRps;
    say(
      `- ${ratio >= 0.9 ? 'met' : 'MISSED'}: accepted rate while reviews are pending (and provider work remains) ≥ 90% of the same campaign's ` +
        `rate without review (${(ratio * 100).toFixed(1)}%; while the work lasts, against each other: ${((on.workRps / off.workRps) * 100).toFixed(1)}%; ` +
        `steady parts: ${((on.steadyRps / off.steadyRps) * 100).toFixed(1)}%, the review campaign's ending with ${(on.makespanS - on.workS).toFixed(0)} s of waiting for people)`,
    );
    say(
      `- ${on.approved} runs approved by the reviewer script; all ${scale.subjects} done: ${on.done === scale.subjects ? 'yes' : 'NO'}`,
    );
  } finally {
    await context.stack.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

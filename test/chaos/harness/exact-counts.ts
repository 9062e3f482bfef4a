import { isDeepStrictEqual } from 'node:util';
import type { CampaignSummary } from '@avatar-pipeline/client/contracts/campaign/campaign';
import type { SimulatorStats } from '../../../src/simulator';
import type { Usage } from '@avatar-pipeline/client/contracts/usage';
import { AVATARS_PER_ORDER, type ChaosSize } from './chaos-size';
import { CHAOS_COSTS } from './chaos-stage';

/** What the provider holds for one subject, found from its own records by the subject's model. */
interface SubjectFootprint {
  subjectId: string;
  status: string;
  avatarCount: number | undefined;
  model: { kind: string; uploads: number; runs: number; runAttempts: number; status: string } | null;
  generations: { styles: number[]; runs: number; runAttempts: number; status: string }[];
}

function footprints(summary: CampaignSummary, stats: SimulatorStats): SubjectFootprint[] {
  const byId = new Map(stats.orders.map((order) => [order.id, order]));
  return [...summary.subjects]
    .sort((a, b) => Number(a.subjectId.slice(1)) - Number(b.subjectId.slice(1)))
    .map((subject) => {
      const model = subject.modelId === undefined ? undefined : byId.get(subject.modelId);
      return {
        subjectId: subject.subjectId,
        status: subject.status,
        avatarCount: subject.avatarCount,
        model: model
          ? {
              kind: model.kind,
              uploads: model.uploads,
              runs: model.runs,
              runAttempts: model.runAttempts,
              status: model.status,
            }
          : null,
        generations: stats.orders
          .filter((order) => order.kind === 'generation' && model !== undefined && order.parent === model.id)
          .map((order) => ({
            styles: order.styles,
            runs: order.runs,
            runAttempts: order.runAttempts,
            status: order.status,
          }))
          .sort((a, b) => (a.styles[0] ?? 0) - (b.styles[0] ?? 0)),
      };
    });
}

/** Per subject: DONE with all its avatars, one model with its selfies run once, one order per style run once. */
function expectedFootprints(size: ChaosSize): SubjectFootprint[] {
  const styles = [...size.styles].sort((a, b) => a - b);
  return Array.from({ length: size.subjects }, (_, i) => ({
    subjectId: `s${i + 1}`,
    status: 'DONE',
    avatarCount: AVATARS_PER_ORDER * styles.length,
    model: { kind: 'model', uploads: size.selfiesPerSubject, runs: 1, runAttempts: 1, status: 'DONE' },
    generations: styles.map((style) => ({ styles: [style], runs: 1, runAttempts: 1, status: 'DONE' })),
  }));
}

/** The subjects whose footprint expectExactCounts refuses, by id. */
export function subjectsOffCount(summary: CampaignSummary, stats: SimulatorStats, size: ChaosSize): string[] {
  const expected = new Map(expectedFootprints(size).map((f) => [f.subjectId, f]));
  return footprints(summary, stats)
    .filter((f) => !isDeepStrictEqual(f, expected.get(f.subjectId)))
    .map((f) => f.subjectId);
}

/**
 * The chaos suite's verdict: every subject DONE with all its avatars, and at the provider,
 * per subject, exactly one model holding exactly its selfies and run once (one run call: a blind
 * second run would show in runAttempts even though the provider refuses it), and exactly one
 * generation order per style, each run once; nothing else at the provider (no orphan model or
 * order a lost answer left behind). Every figure is compared in one go, so a failure shows the
 * subjects that went wrong.
 */
export function expectExactCounts(summary: CampaignSummary, stats: SimulatorStats, size: ChaosSize): void {
  const styles = size.styles.length;
  expect({
    total: summary.total,
    succeeded: summary.succeeded,
    failed: summary.failed,
    partial: summary.partial,
    cancelled: summary.cancelled,
  }).toEqual({ total: size.subjects, succeeded: size.subjects, failed: 0, partial: 0, cancelled: 0 });

  expect(footprints(summary, stats)).toEqual(expectedFootprints(size));

  const modelIds = summary.subjects.map((s) => s.modelId);
  expect(new Set(modelIds).size).toBe(size.subjects);
  expect(stats.totals).toMatchObject({
    modelsCreated: size.subjects,
    generationOrdersCreated: size.subjects * styles,
    uploads: size.subjects * size.selfiesPerSubject,
    runs: size.subjects * (1 + styles),
    runAttempts: size.subjects * (1 + styles),
  });
}

/** One line for the log: what the provider went through. */
export function describeProviderLoad(stats: SimulatorStats): string {
  const { faults } = stats;
  return [
    `${stats.requests.total} requests`,
    `${faults.serverErrors} 5xx`,
    `${faults.lostResponses} lost`,
    `${faults.malformedJson} malformed`,
    `${faults.slowResponses} slow`,
    `${stats.rateLimited} 429`,
  ].join(', ');
}

/**
 * The budget meter against the provider's own records: one training per model that was run and
 * one generation per generation order that was run, no more and no fewer, all of them the
 * campaign's, priced as CHAOS_COSTS says. Lost answers, retries and killed workers must neither
 * drop an order nor count one twice.
 */
export function expectMeterMatches(usage: Usage, campaignId: string, stats: SimulatorStats): void {
  const ran = (kind: 'model' | 'generation') =>
    stats.orders.filter((o) => o.kind === kind && o.runs > 0).length;
  const trainings = ran('model');
  const generations = ran('generation');
  const credits = trainings * CHAOS_COSTS.training + generations * CHAOS_COSTS.generation;
  expect({
    training: usage.byKind.training.orders,
    generation: usage.byKind.generation.orders + usage.byKind.regeneration.orders,
    campaign: usage.byCampaign[campaignId],
    spent: usage.spent,
  }).toEqual({
    training: trainings,
    generation: generations,
    campaign: { orders: trainings + generations, credits },
    spent: credits,
  });
}

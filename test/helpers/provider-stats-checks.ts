import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { OrderStats, SimulatorStats } from '../../src/simulator';

/**
 * What the provider saw for one pipeline, found from its own records rather than from the
 * pipeline's result, so a duplicate the pipeline never knew about still shows.
 */
export interface PipelineFootprint {
  model: OrderStats;
  generations: OrderStats[];
}

export function footprintOf(stats: SimulatorStats, result: PipelineResult): PipelineFootprint {
  const model = stats.orders.find((o) => o.id === result.modelId && o.kind === 'model');
  if (!model) throw new Error(`the provider has no model ${result.modelId}`);
  return {
    model,
    generations: stats.orders.filter((o) => o.kind === 'generation' && o.parent === model.id),
  };
}

/**
 * The no-duplicates contract, per pipeline: its model got every selfie exactly once and one run,
 * and it has exactly one generation order per style, each run once, matching the result.
 * `runAttempts` counts refused runs too, so a blind second run shows up even though the provider
 * refuses it. Also checks that the provider holds nothing beyond these pipelines' orders.
 */
export function expectNoDuplicates(
  stats: SimulatorStats,
  results: PipelineResult[],
  expected: { selfies: number; styles: number[] },
): void {
  const modelIds = results.map((r) => r.modelId);
  expect(new Set(modelIds).size).toBe(results.length);
  expect(stats.totals.modelsCreated).toBe(results.length);
  expect(stats.totals.generationOrdersCreated).toBe(results.length * expected.styles.length);

  for (const result of results) {
    const { model, generations } = footprintOf(stats, result);
    expect({
      model: model.id,
      uploads: model.uploads,
      runs: model.runs,
      runAttempts: model.runAttempts,
    }).toEqual({ model: model.id, uploads: expected.selfies, runs: 1, runAttempts: 1 });
    expect(generations.map((g) => g.styles).sort((a, b) => a[0]! - b[0]!)).toEqual(
      [...expected.styles].sort((a, b) => a - b).map((s) => [s]),
    );
    for (const order of generations) {
      expect({
        order: order.id,
        runs: order.runs,
        runAttempts: order.runAttempts,
        status: order.status,
      }).toEqual({ order: order.id, runs: 1, runAttempts: 1, status: 'DONE' });
    }
    const reported = result.generations.map((g) => g.orderId).sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(reported).toEqual(generations.map((g) => g.id).sort((a, b) => a - b));
  }
}

/**
 * History events of a 1-selfie × 3-style pipeline with every workflow it started (its model
 * claim), as the server counts them, at the polling pipeline-timing.ts
 * uses; with the events split by workflow and by type, so a change in the count can be traced to
 * the commands (or signals) that made it.
 */
import type { Client } from '@temporalio/client';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { fetchFamilyHistories } from '../src/histories/fetch-family';
import { historyToJson } from '../src/histories/history-json';
import { startSimulator } from '../src/simulator';
import { startBenchWorker } from './bench-worker';
import type { Stack } from './campaign-stack';
import { GENERATION_MS, POLLING, STYLES, TRAINING_MS } from './pipeline-timing';

export interface FamilyHistory {
  events: number;
  bytes: number;
  /** Events of the pipeline itself and of its claim(s). */
  byWorkflow: { pipeline: number; claims: number };
  /** Events by type across the family, e.g. WORKFLOW_EXECUTION_SIGNALED. */
  byType: Record<string, number>;
}

export interface PipelineHistory {
  runs: number;
  /** The run with the median event count. */
  median: FamilyHistory;
}

export async function measurePipelineHistory(
  stack: Stack,
  selfie: { path: string; dir: string },
  runs = 3,
): Promise<PipelineHistory> {
  const sim = await startSimulator({
    progression: { mode: 'wall', trainingMs: TRAINING_MS, generationMs: GENERATION_MS },
  });
  const worker = await startBenchWorker(stack, sim, selfie.dir);
  const families: FamilyHistory[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const pipeline = await startPipeline(
        stack.client,
        { images: [selfie.path], styles: STYLES, gender: 1, subjectId: `history-${i}`, polling: POLLING },
        worker.placement,
      );
      await pipeline.result();
      families.push(await familyHistory(stack.client, pipeline.workflowId));
    }
  } finally {
    await worker.stop();
    await sim.stop();
  }
  const sorted = [...families].sort((a, b) => a.events - b.events);
  return { runs, median: sorted[Math.floor(sorted.length / 2)]! };
}

/** A closed pipeline and every workflow it started, from their histories and the server's sizes. */
export async function familyHistory(client: Client, workflowId: string): Promise<FamilyHistory> {
  const histories = await fetchFamilyHistories(client, workflowId);
  const family: FamilyHistory = {
    events: 0,
    bytes: 0,
    byWorkflow: { pipeline: 0, claims: 0 },
    byType: {},
  };
  for (const [id, history] of histories) {
    // The standard JSON names each event's type (the fetched message numbers them).
    const events = (JSON.parse(historyToJson(history)) as { events?: { eventType: string }[] }).events ?? [];
    family.events += events.length;
    family.bytes += (await client.workflow.getHandle(id).describe()).historySize ?? 0;
    family.byWorkflow[id === workflowId ? 'pipeline' : 'claims'] += events.length;
    for (const event of events) {
      const type = event.eventType.replace(/^EVENT_TYPE_/, '');
      family.byType[type] = (family.byType[type] ?? 0) + 1;
    }
  }
  return family;
}

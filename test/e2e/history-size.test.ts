import { readFile } from 'node:fs/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { writeNoisePngs } from '../helpers/noise-selfies';
import { createTestWorker } from '../helpers/pipeline-worker';
import { historyToJson } from '../../src/histories/history-json';
import { fetchFamilyHistories } from '../../src/histories/fetch-family';
import { createDevServerEnv, makeScratchDir, uniqueName } from '../helpers/temporal-env';
import { decodedHistoryText, payloadSizes } from '../helpers/workflow-histories';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';

const SELFIE_BYTES = 5_000_000;
const HISTORY_BUDGET_BYTES = 200 * 1024;

describe('workflow history of a pipeline with ten 5 MB selfies', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let dir: string;
  let files: string[];

  beforeAll(async () => {
    env = await createDevServerEnv();
    dir = await makeScratchDir('big-selfies');
    files = await writeNoisePngs(dir, 10, SELFIE_BYTES);
    sim = await startSimulator({
      basePath: uniqueBasePath('history'),
      // Finish on a fixed number of status calls, so the number of polls (and events) does not
      // depend on how busy the machine is.
      progression: { mode: 'calls', trainingCalls: 3, generationCalls: 2 },
    });
  });
  afterAll(async () => {
    await sim?.stop();
    await env?.teardown();
  });

  test('stays under 200 KB across the pipeline and its children, with no image bytes in it', async () => {
    const taskQueue = uniqueName('history');
    const worker = await createTestWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [dir],
    });
    const result = await worker.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: files, styles: [3, 7], gender: 2, polling: FAST_POLLING },
        placementFrom({ taskQueue }),
      );
      return pipeline.result();
    });
    expect(result.status).toBe('DONE');
    // The provider really received all ten, at full size.
    const model = sim.stats().orders.find((o) => o.id === result.modelId);
    expect(model?.uploads).toBe(10);
    const sizes = await Promise.all(files.map(async (f) => (await readFile(f)).length));
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(SELFIE_BYTES);

    const histories = await fetchFamilyHistories(env.client, result.workflowId);
    // The pipeline (which collects every style's avatars itself) and the model's claim.
    expect(histories.size).toBeGreaterThanOrEqual(2);
    // What Temporal counts against its history limits (the server's encoded size)...
    const serverBytes = await sum([...histories.keys()], async (id) => {
      const { historySize } = await env.client.workflow.getHandle(id).describe();
      if (historySize === undefined) throw new Error(`the server reports no history size for ${id}`);
      return historySize;
    });
    // ...and the histories as exported (standard history JSON, without indentation).
    const jsonBytes = await sum([...histories.values()], async (history) =>
      Buffer.byteLength(JSON.stringify(JSON.parse(historyToJson(history)))),
    );
    process.stderr.write(
      `history of ${histories.size} workflows: ${serverBytes} bytes on the server, ${jsonBytes} bytes as JSON\n`,
    );
    expect(serverBytes).toBeLessThan(HISTORY_BUDGET_BYTES);
    expect(jsonBytes).toBeLessThan(HISTORY_BUDGET_BYTES);
    // No single payload (input, result, signal, memo, summary) comes near the size of a selfie.
    const payloads = [...histories.values()].flatMap(payloadSizes);
    expect(payloads.length).toBeGreaterThan(50);
    expect(Math.max(...payloads)).toBeLessThan(8 * 1024);

    const text = [...histories.values()].map(decodedHistoryText).join('\n');
    expect(text).toContain(files[0]); // the references are there, so the search does see payloads
    expect(text).not.toContain('iVBORw0KGgo'); // Base64 of the PNG signature
    for (const file of files) {
      const bytes = await readFile(file);
      // A slice at an offset divisible by 3 appears verbatim in the file's Base64, wherever it is embedded.
      const slice = bytes.subarray(300_000, 300_000 + 48);
      expect(text).not.toContain(slice.toString('base64'));
      expect(text).not.toContain(slice.toString('latin1'));
    }
  }, 120_000);
});

async function sum<T>(items: T[], size: (item: T) => Promise<number>): Promise<number> {
  const sizes = await Promise.all(items.map(size));
  return sizes.reduce((total, n) => total + n, 0);
}

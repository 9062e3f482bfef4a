/**
 * Activity throughput of the product's worker against direct calls: the same number of status
 * calls, the same concurrency, once as getOrderStatus activities scheduled by workflows and
 * executed by `avatar-pipeline worker`, once straight through the provider client.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { startSimulator } from '../src/simulator';
import { startBenchWorker } from './bench-worker';
import type { Stack } from './campaign-stack';
import type { activityThroughput } from './workflows/activity-throughput';

export interface Throughput {
  calls: number;
  concurrency: number;
  workerCallsPerS: number;
  directCallsPerS: number;
}

const WORKFLOWS = 10;

export async function measureActivityThroughput(
  stack: Stack,
  imageDir: string,
  calls = 3_000,
  concurrency = 50,
): Promise<Throughput> {
  const sim = await startSimulator({ progression: { mode: 'wall', trainingMs: 1_000, generationMs: 1_000 } });
  const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
  const model = await provider.createModel({ styles: [3], gender: 1 });
  const worker = await startBenchWorker(stack, sim, imageDir, {
    WORKER_MAX_CONCURRENT_ACTIVITIES: String(concurrency),
  });
  // The bench's workflows run here; their activities run in the product's worker process.
  const connection = await NativeConnection.connect({ address: stack.server.address });
  const taskQueue = `${worker.placement.taskQueue}-bench-workflows`;
  const benchWorker = await Worker.create({
    connection,
    namespace: stack.server.namespace,
    taskQueue,
    workflowsPath: require.resolve('./workflows/activity-throughput'),
  });
  try {
    const perWorkflow = Math.ceil(calls / WORKFLOWS);
    const lanes = Math.ceil(concurrency / WORKFLOWS);
    const workerS = await benchWorker.runUntil(async () => {
      const started = Date.now();
      await Promise.all(
        Array.from({ length: WORKFLOWS }, (_, i) =>
          stack.client.workflow.execute<typeof activityThroughput>('activityThroughput', {
            taskQueue,
            workflowId: `${taskQueue}-${i}`,
            args: [
              {
                providerTaskQueue: worker.placement.providerTaskQueue,
                orderId: model.id,
                calls: perWorkflow,
                lanes,
              },
            ],
          }),
        ),
      );
      return (Date.now() - started) / 1000;
    });
    const viaWorker = perWorkflow * WORKFLOWS;
    // The provider's own count proves every activity made its call, once.
    const seen = statusCallsOf(sim.stats(), model.id);
    if (seen !== viaWorker) throw new Error(`the provider saw ${seen} status calls, not ${viaWorker}`);

    const started = Date.now();
    let issued = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (issued < viaWorker) {
          issued++;
          await provider.getOrderStatus(model.id);
        }
      }),
    );
    const directS = (Date.now() - started) / 1000;
    return {
      calls: viaWorker,
      concurrency,
      workerCallsPerS: viaWorker / workerS,
      directCallsPerS: viaWorker / directS,
    };
  } finally {
    await connection.close();
    await worker.stop();
    await sim.stop();
  }
}

function statusCallsOf(
  stats: ReturnType<Awaited<ReturnType<typeof startSimulator>>['stats']>,
  orderId: number,
) {
  return stats.orders.find((order) => order.id === orderId)?.statusCalls ?? 0;
}

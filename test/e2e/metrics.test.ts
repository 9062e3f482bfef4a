import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { budgetSchema } from '@avatar-pipeline/client/contracts/usage';
import { BUDGET_METRICS } from '../../src/worker/budget-metrics';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { findFreePort } from '../../dev/devserver';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { PipelineTracing } from '../../src/tracing/pipeline-tracing';
import { OtlpReceiver } from '../helpers/otlp-receiver';
import { parsePrometheusText, sumOf, type Sample } from '../helpers/prometheus-text';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, devServerUnderTest, uniqueName } from '../helpers/temporal-env';

const ROOT = path.join(__dirname, '..', '..');
const COSTS = { training: 10, generation: 2 };
const PROVIDER_KEY = `key-${randomUUID()}`;

/**
 * The worker as operators run it (`avatar-pipeline worker`, a process of its own) serves the SDK's
 * metrics and the package's provider and polling metrics on METRICS_BIND_ADDRESS, logs JSON lines
 * with workflow context and no secrets, and exports OpenTelemetry spans continuing the starter's
 * trace when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
describe('worker metrics, logs and traces', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let collector: OtlpReceiver;
  let starterTracing: PipelineTracing;
  let worker: ChildProcess;
  let output = '';
  let metricsUrl: string;
  const taskQueue = uniqueName('metrics');

  beforeAll(async () => {
    env = await createDevServerEnv();
    const { address, namespace } = devServerUnderTest();
    const selfies = await writeSelfies(2, 'metrics-selfies-');
    // Some answers must be 429s, so that the rate-limit counters have something to count. Whether a
    // pipeline's own requests overrun a bucket depends on how fast a (possibly loaded) machine sends
    // them, so the bucket starts with one token that takes 10 s to come back: the pipeline's second
    // request is refused whatever the timing. Once it has been, the limit is relaxed to a tight one.
    sim = await startSimulator({
      apiKey: PROVIDER_KEY,
      progression: { mode: 'wall', trainingMs: 800, generationMs: 300 },
      rateLimit: { requestsPerSecond: 0.1, burst: 1, retryAfterSeconds: 1 },
    });
    collector = await OtlpReceiver.start();
    const port = await findFreePort();
    // Priced, so the tenant's meter reports its usage to the worker's gauges.
    const tenantsFile = path.join(selfies.dir, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({ costs: COSTS, tenants: { default: { budget: { credits: 100 } } } }),
    );
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    worker = spawn(process.execPath, [path.join(ROOT, 'bin', 'avatar-pipeline.js'), 'worker'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        PROVIDER_BASE_URL: sim.url,
        PROVIDER_API_KEY: PROVIDER_KEY,
        IMAGE_ROOTS: selfies.dir,
        METRICS_BIND_ADDRESS: `127.0.0.1:${port}`,
        LOG_LEVEL: 'debug',
        LOG_FORMAT: 'json',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        API_TENANTS_FILE: tenantsFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil('the worker to start', () => output.includes('avatar-pipeline worker started'), worker);

    // The starter traces too (as `avatar-pipeline api` does), so its start is the root of the trace.
    starterTracing = PipelineTracing.start({ endpoint: collector.url, serviceName: 'metrics-test-starter' })!;
    const starter = new Client({
      connection: env.connection,
      namespace,
      interceptors: { workflow: starterTracing.clientInterceptors() },
    });
    const pipeline = await startPipeline(
      starter,
      {
        images: selfies.files,
        styles: [3, 5],
        gender: 1,
        subjectId: 'metrics-subject',
        polling: { initialIntervalMs: 200, minIntervalMs: 200, maxIntervalMs: 400 },
      },
      {
        ...placementFrom({ taskQueue }),
        pricing: { costs: COSTS, budget: budgetSchema.parse({ credits: 100 }) },
      },
    );
    workflowId = pipeline.workflowId;
    await waitUntil('a request answered 429', () => sim.stats().rateLimited > 0, worker);
    sim.setOptions({ rateLimit: { requestsPerSecond: 8, burst: 2, retryAfterSeconds: 1 } });
    await pipeline.result();
  });
  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGKILL');
      await exited;
    }
    await sim?.stop();
    await starterTracing?.shutdown();
    await collector?.stop();
    await env?.teardown();
  });

  let workflowId: string;

  async function scrape(): Promise<Sample[]> {
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    return parsePrometheusText(await res.text());
  }

  test("the SDK's metrics count the pipeline's workflows and activities", async () => {
    const samples = await scrape();
    expect(
      sumOf(samples, 'temporal_workflow_completed', {
        workflow_type: 'avatarPipeline',
        task_queue: taskQueue,
      }),
    ).toBe(1);
    // Each style's avatars are read in the pipeline, at least its first page and the empty one after.
    expect(
      sumOf(samples, 'temporal_activity_execution_latency_count', { activity_type: 'listAvatarPage' }),
    ).toBeGreaterThanOrEqual(4);
    expect(
      sumOf(samples, 'temporal_activity_execution_latency_count', { activity_type: 'createModel' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sumOf(samples, 'temporal_activity_execution_latency_count', { activity_type: 'uploadSelfie' }),
    ).toBeGreaterThanOrEqual(2);
  });

  test("the budget gauges show the tenant's usage: one training and two styles spent of its budget", async () => {
    // The meter reports at most every 15 s after a change.
    let samples = await scrape();
    for (let i = 0; i < 150 && sumOf(samples, BUDGET_METRICS.spent, { tenant: 'default' }) < 14; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      samples = await scrape();
    }
    expect({
      spent: sumOf(samples, BUDGET_METRICS.spent, { tenant: 'default' }),
      budget: sumOf(samples, BUDGET_METRICS.budget, { tenant: 'default' }),
    }).toEqual({ spent: COSTS.training + 2 * COSTS.generation, budget: 100 });
  });

  test('the provider metrics agree with what the provider saw', async () => {
    const samples = await scrape();
    const stats = sim.stats();
    const requests = 'avatar_pipeline_provider_requests';
    // Every request the provider received was counted once, under its endpoint and outcome.
    expect(sumOf(samples, requests)).toBe(stats.requests.total);
    expect(sumOf(samples, requests, { endpoint: '/order/create/model', outcome: 'ok' })).toBe(1);
    expect(sumOf(samples, requests, { endpoint: '/order/create', outcome: 'ok' })).toBe(2);
    expect(stats.rateLimited).toBeGreaterThan(0);
    expect(sumOf(samples, requests, { outcome: 'rate-limited' })).toBe(stats.rateLimited);
    expect(sumOf(samples, 'avatar_pipeline_provider_rate_limited')).toBe(stats.rateLimited);
    // Latency: one observation per request, and a plausible total.
    expect(sumOf(samples, 'avatar_pipeline_provider_request_latency_count')).toBe(stats.requests.total);
    const latencySum = sumOf(samples, 'avatar_pipeline_provider_request_latency_sum');
    expect(latencySum).toBeGreaterThan(0);
    expect(latencySum / stats.requests.total).toBeLessThan(5_000);
  });

  test('polls per order: one training order, one per style, each polled as often as the provider says', async () => {
    const samples = await scrape();
    const stats = sim.stats();
    const model = stats.orders.find((o) => o.kind === 'model')!;
    const generations = stats.orders.filter((o) => o.kind === 'generation');
    expect(sumOf(samples, 'avatar_pipeline_order_polls_count', { kind: 'training', outcome: 'done' })).toBe(
      1,
    );
    expect(sumOf(samples, 'avatar_pipeline_order_polls_count', { kind: 'generation', outcome: 'done' })).toBe(
      2,
    );
    // Reads that were answered (not refused with 429) are the polls: an order's own status call,
    // or a list of its model's orders, which reads every generation order at once.
    const polled = sumOf(samples, 'avatar_pipeline_order_polls_sum');
    const lists = stats.requests.byEndpoint.listModelOrders ?? 0;
    expect(polled).toBeGreaterThanOrEqual(3);
    expect(polled).toBeLessThanOrEqual(
      model.statusCalls + generations.reduce((n, o) => n + o.statusCalls, 0) + lists * generations.length,
    );
  });

  test('logs are JSON lines with workflow context, and carry no secret', async () => {
    // Workflow log lines travel through the worker's sinks, a moment after the result.
    await waitUntil(
      'the last stage to be logged',
      () => output.includes('"message":"pipeline stage done"'),
      worker,
    );
    expect(output).not.toContain(PROVIDER_KEY);
    const lines = output
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines)
      expect(line).toEqual(
        expect.objectContaining({
          time: expect.any(String),
          level: expect.any(String),
          message: expect.any(String),
        }),
      );
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'provider call',
        endpoint: '/order/create/model',
        workflowId,
        activityType: 'createModel',
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'pipeline stage done',
        workflowId,
        subject: 'metrics-subject',
        stage: 'done',
      }),
    );
  });

  test("one trace runs from the starter's start through the workflows to every provider activity", async () => {
    await starterTracing.shutdown(); // flushes the starter's spans
    await waitUntil(
      "the worker to export the pipeline's run and its avatar page reads",
      () =>
        collector.spans.some((span) => span.name === 'RunWorkflow:avatarPipeline') &&
        collector.spans.filter((span) => span.name === 'RunActivity:listAvatarPage').length >= 4,
      worker,
    );
    const start = collector.spans.find(
      (span) =>
        span.name === 'StartWorkflow:avatarPipeline' && span.attributes.temporalWorkflowId === workflowId,
    );
    expect(start).toEqual(expect.objectContaining({ service: 'metrics-test-starter' }));
    const trace = collector.spans.filter((span) => span.traceId === start!.traceId);
    const names = new Set(trace.map((span) => span.name));
    for (const name of [
      'RunWorkflow:avatarPipeline',
      'StartActivity:createModel',
      'RunActivity:createModel',
      'RunActivity:uploadSelfie',
      'StartActivity:listAvatarPage',
      'RunActivity:listAvatarPage',
      'RunActivity:createGenerationOrder',
    ])
      expect(names).toContain(name);
    // The worker's spans carry OTEL_SERVICE_NAME's default, and parents are spans of the same trace.
    expect(trace.find((span) => span.name === 'RunActivity:createModel')!.service).toBe('avatar-pipeline');
    const ids = new Set(trace.map((span) => span.spanId));
    for (const span of trace.filter((s) => s !== start)) expect(ids).toContain(span.parentSpanId);
    for (const body of collector.bodies) expect(body).not.toContain(PROVIDER_KEY);
  });

  test('SIGTERM drains and stops the worker with exit code 0', async () => {
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    worker.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('avatar-pipeline worker drained and stopped');
  });
});

async function waitUntil(
  what: string,
  check: () => boolean,
  child: ChildProcess,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode}) before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

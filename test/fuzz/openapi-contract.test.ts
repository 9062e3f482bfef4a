import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_API_LIMITS } from '../../src/api/server';
import type { AppConfig } from '../../src/config/load-config';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { uniqueBasePath } from '../helpers/e2e-pipeline';
import { testConfig } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import {
  createDevServerEnv,
  devServerUnderTest,
  makeScratchDir,
  uniqueName,
  useOwnNamespace,
} from '../helpers/temporal-env';
import { startTestApi } from '../helpers/test-api';
import { findSchemathesis, runSchemathesis, type Schemathesis } from './schemathesis';

const TOKEN = 'fuzz-token-0123456789abcdef';
/**
 * Test cases per operation and phase, for the server with every optional feature configured: about
 * 6,500 test cases, about a minute on an idle 2-core machine.
 */
const EXAMPLES_PER_OPERATION = 100;
/**
 * The same for the server without them: what differs is which routes exist and what a few of them
 * answer, so fewer cases suffice (about 3,000 test cases, most from the coverage phase: some 25 s).
 */
const EXAMPLES_WITHOUT_FEATURES = 25;
const SEED = 20240524;
const FUZZ_DEADLINE_MS = 240_000;

/**
 * The optional features a server may have, each of which changes what its document holds or what
 * its routes answer: registered webhook endpoints (WEBHOOK_SIGNING_KEY: without it the /v1/webhooks
 * routes are not served) and completion callbacks (CALLBACK_SIGNING_SECRET: without it no callbackUrl
 * is taken and GET /v1/callbacks/secret answers 404).
 */
const OPTIONAL_FEATURES = {
  webhookKey: 'fuzz-webhook-signing-key-0123456789abcdef',
  signingSecret: 'fuzz-callback-signing-secret-0123456789abcdef',
} as const;

/**
 * The OpenAPI document is the contract: Schemathesis reads the served /openapi.json and, with
 * every one of its checks, sends what the document allows and what it forbids to each operation of
 * a real stack (dev server, workers, simulator, API). Any status, content type, header or body the
 * document does not declare, a request it allows that is refused or one it forbids that is
 * accepted, a method it does not list that is not answered 405 with Allow, fails the run. Twice:
 * against a server with every optional feature configured and against one with none (each one's
 * document is its own), both on the same stack.
 */
describe('the API against its own OpenAPI document (Schemathesis)', () => {
  let tool: Schemathesis;
  let env: TestWorkflowEnvironment;
  let restoreNamespace: (() => void) | undefined;
  let sim: RunningSimulator;
  let workers: PipelineWorkers;
  let running: Promise<void>;
  let workDir: string;
  const apis: { app: FastifyInstance; log: WriteStream }[] = [];
  const bases: Record<'configured' | 'bare', string> = { configured: '', bare: '' };

  beforeAll(async () => {
    tool = await findSchemathesis();
    // Its own namespace: what the fuzzer starts is listed by no other test and is ended here.
    restoreNamespace = await useOwnNamespace(uniqueName('fuzz'));
    env = await createDevServerEnv();
    workDir = await makeScratchDir('fuzz');
    const selfies = await writeSelfies(3, 'fuzz-selfies-');
    sim = await startSimulator({
      basePath: uniqueBasePath('fuzz'),
      progression: { mode: 'wall', trainingMs: 300, generationMs: 200 },
    });
    const taskQueue = uniqueName('fuzz');
    const blobDir = path.join(workDir, 'blobs');
    const base_ = testConfig({
      taskQueue,
      providerUrl: sim.url,
      imageRoots: [blobDir, selfies.dir],
      namespace: devServerUnderTest().namespace,
    });
    const config: AppConfig = {
      ...base_,
      callbacks: { ...base_.callbacks, ...OPTIONAL_FEATURES },
      temporal: { ...base_.temporal, address: devServerUnderTest().address },
      api: {
        ...base_.api,
        tokens: [TOKEN],
        blobDir,
        maxFileBytes: 256 * 1024,
        // The fuzzer sends thousands of requests a minute; the limit's 429 is declared all the same.
        limits: { ...DEFAULT_API_LIMITS, rateLimitPerMinute: 1_000_000 },
      },
    };
    // The workers can sign whatever either server lets a caller ask for.
    workers = await PipelineWorkers.create({
      config: { ...base_, callbacks: config.callbacks },
      connection: env.nativeConnection,
    });
    running = workers.run();
    const servers = {
      configured: config,
      bare: { ...config, callbacks: { privateHosts: config.callbacks.privateHosts } },
    };
    for (const [name, serverConfig] of Object.entries(servers) as [keyof typeof servers, AppConfig][]) {
      // Each API's request log stays next to its schemathesis.log in the run directory, to trace a failure.
      await mkdir(path.join(workDir, name), { recursive: true });
      const log = createWriteStream(path.join(workDir, name, 'api.log'));
      const { app, base } = await startTestApi({
        config: serverConfig,
        client: env.client,
        logger: { level: 'info', stream: log },
      });
      apis.push({ app, log });
      bases[name] = base;
    }
  });

  afterAll(async () => {
    for (const { app, log } of apis) {
      await app.close();
      log.end();
    }
    if (env) await endEverything(env.client);
    workers?.shutdown();
    await running;
    await sim?.stop();
    await env?.teardown();
    restoreNamespace?.();
  });

  it(
    'finds no failure with every check, every optional feature configured',
    () => fuzz('configured', EXAMPLES_PER_OPERATION),
    FUZZ_DEADLINE_MS + 30_000,
  );

  it(
    'finds no failure with every check, no optional feature configured',
    () => fuzz('bare', EXAMPLES_WITHOUT_FEATURES),
    FUZZ_DEADLINE_MS + 30_000,
  );

  async function fuzz(server: keyof typeof bases, examples: number): Promise<void> {
    const deadline = AbortSignal.timeout(FUZZ_DEADLINE_MS);
    const run = await runSchemathesis(
      tool,
      [
        `${bases[server]}/openapi.json`,
        ...['--checks', 'all'],
        ...['--header', `Authorization: Bearer ${TOKEN}`],
        ...['--max-examples', String(examples)],
        ...['--seed', String(SEED)],
        // One worker: on CPython 3.11, Hypothesis describing strategies in several threads at once
        // trips "AST constructor recursion depth mismatch"; one also keeps the run off the other core.
        ...['--workers', '1'],
        ...['--request-timeout', '20'],
        ...['--generation-database', 'none'],
        '--no-color',
      ],
      {
        cwd: path.join(workDir, server),
        configFile: path.join(__dirname, 'schemathesis.toml'),
        signal: deadline,
      },
    );
    if (run.exitCode !== 0) {
      process.stderr.write(run.output);
      throw new Error(
        `schemathesis ${tool.version} against the ${server} server ended with ${run.signal ?? `exit code ${run.exitCode}`}; its output is above`,
      );
    }
    // One line on what was covered, e.g. "Test cases: 2234 generated, 0 found 0 unique failures".
    const covered = /Test cases:\s*\n?\s*(.+)/.exec(run.output)?.[1];
    process.stderr.write(
      `[fuzz] schemathesis ${tool.version}, ${server} server: ${covered ?? 'no summary'}\n`,
    );
    expect(covered).toMatch(/\d+ generated/);
  }
});

/** Terminates every workflow the fuzzer started and left open (pipelines, campaigns, claims). */
async function endEverything(client: Client): Promise<void> {
  for await (const execution of client.workflow.list({ query: 'ExecutionStatus="Running"' })) {
    await client.workflow
      .getHandle(execution.workflowId, execution.runId)
      .terminate('the fuzz test is over')
      .catch(() => undefined);
  }
}

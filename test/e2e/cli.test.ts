import { existsSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../../src/simulator';
import { uniqueBasePath } from '../helpers/e2e-pipeline';
import { testConfig } from '../helpers/pipeline-worker';
import { runCli } from '../helpers/run-cli';
import { writeSelfies } from '../helpers/selfie-files';
import { devServerUnderTest, uniqueName } from '../helpers/temporal-env';

/** The pipeline result of docs/contracts.md; more fields are allowed. */
const resultSchema = z.object({
  workflowId: z.string().min(1),
  modelId: z.number().int(),
  status: z.enum(['DONE', 'PARTIAL']),
  generations: z
    .array(
      z.object({
        styleId: z.number().int(),
        orderId: z.number().int(),
        status: z.enum(['DONE', 'ERROR', 'CANCELLED']),
        avatars: z.array(z.object({ avatarId: z.number().int(), imageUrl: z.url() })),
      }),
    )
    .min(1),
});

describe('the avatar-pipeline command', () => {
  const { address, namespace } = devServerUnderTest();
  let connection: NativeConnection;
  let selfies: { dir: string; files: string[] };
  const stacks: { sim: RunningSimulator; worker: PipelineWorkers; done: Promise<void> }[] = [];

  /** A simulator with a worker on a fresh task queue; returns the environment for the CLI. */
  async function stack(
    options: StartSimulatorOptions = {},
  ): Promise<{ env: Record<string, string>; sim: RunningSimulator }> {
    const sim = await startSimulator({
      basePath: uniqueBasePath('cli'),
      progression: { mode: 'wall', trainingMs: 1_000, generationMs: 500 },
      avatarsPerOrder: 3,
      ...options,
    });
    const taskQueue = uniqueName('cli');
    // Both workers, as `avatar-pipeline worker` runs them: the client sends provider calls to the provider queue.
    const worker = await PipelineWorkers.create({
      connection,
      config: testConfig({ namespace, taskQueue, providerUrl: sim.url, imageRoots: [selfies.dir] }),
    });
    stacks.push({ sim, worker, done: worker.run() });
    return {
      sim,
      env: {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        PROVIDER_BASE_URL: sim.url,
        PROVIDER_API_KEY: 'sim-key',
      },
    };
  }

  beforeAll(async () => {
    if (!existsSync(path.join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js'))) {
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    }
    connection = await NativeConnection.connect({ address });
    selfies = await writeSelfies(2);
  });
  afterAll(async () => {
    for (const { worker, sim, done } of stacks) {
      worker.shutdown();
      await done;
      await sim.stop();
    }
    await connection.close();
  });

  it('run --json: exactly one JSON result on stdout, progress on stderr; status and list find the run; a failed pipeline exits 1', async () => {
    const good = await stack();
    const bad = await stack({ trainingOutcome: 'ERROR' });
    const subject = uniqueName('subject');
    const requestId = uniqueName('cli-run');
    const [ok, failed] = await Promise.all([
      runCli(
        [
          'run',
          '--images',
          selfies.dir,
          '--styles',
          '3,7',
          '--gender',
          '1',
          '--subject',
          subject,
          '--request-id',
          requestId,
          '--json',
        ],
        good.env,
      ),
      runCli(['run', '--images', ...selfies.files, '--styles', '5', '--gender', '2', '--json'], bad.env),
    ]);

    expect(ok.stderr).toContain(`started default.avatar-pipeline-${requestId}`);
    expect(ok.code).toBe(0);
    const printed: unknown = JSON.parse(ok.stdout);
    const result = resultSchema.parse(printed);
    expect(result.workflowId).toBe(`default.avatar-pipeline-${requestId}`);
    expect(result.generations.map((g) => [g.styleId, g.status, g.avatars.length])).toEqual([
      [3, 'DONE', 3],
      [7, 'DONE', 3],
    ]);
    // Not a terminal: plain progress lines, no cursor movement.
    expect(ok.stderr).toMatch(/^stage=training /m);
    expect(ok.stderr).not.toContain('\u001b[');
    expect(ok.stdout).not.toContain('stage=');

    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/pipeline default\.avatar-pipeline-\S+ failed: .*training/i);

    const [status, list, missing] = await Promise.all([
      runCli(['status', result.workflowId, '--json'], good.env),
      runCli(['list', '--subject', subject, '--json'], good.env),
      runCli(['status', 'avatar-pipeline-no-such-run'], good.env),
    ]);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as {
      state: string;
      result: unknown;
      progress: { stage: string };
    };
    expect(report.state).toBe('COMPLETED');
    expect(report.result).toEqual(printed);
    expect(report.progress.stage).toBe('done');
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { workflowId: string }[]).map((r) => r.workflowId)).toContain(
      result.workflowId,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no pipeline with id avatar-pipeline-no-such-run');
  });

  it('styles --json lists the provider’s styles', async () => {
    const { env } = await stack();
    const styles = await runCli(['styles', '--json'], env);
    expect(styles.code).toBe(0);
    const parsed = z.array(z.object({ id: z.number(), name: z.string() })).parse(JSON.parse(styles.stdout));
    expect(parsed.map((s) => s.id)).toEqual(expect.arrayContaining([3, 5, 7]));
  });

  it.each([
    [['run', '--images', 'DIR', '--styles', '3,x', '--gender', '1'], /--styles: "x" is not a style id/],
    [
      ['run', '--images', 'DIR', '--styles', '3', '--gender', '5'],
      /--gender: "5" must be 1 \(woman\) or 2 \(man\)/,
    ],
    [['run', '--images', 'DIR', '--styles', '3,3', '--gender', '1'], /--styles: must not repeat a style id/],
    [
      ['run', '--images', 'DIR', '--styles', '3', '--gender', '1', '--main-image', '9'],
      /--main-image: must point at one of the images/,
    ],
    [
      ['run', '--images', '/no/such/dir', '--styles', '3', '--gender', '1'],
      /images: \/no\/such\/dir does not exist/,
    ],
    [['run', '--images', 'DIR', '--gender', '1'], /required option '--styles <ids>' not specified/],
    [['list', '--limit', '0'], /--limit.*must be a whole number from 1 to 1000/],
    [['list', '--status', 'sleeping'], /--status.*must be one of running, awaiting-review, completed/],
  ])('exits 2 on bad input %j, naming the field', async (args, message) => {
    const outcome = await runCli(
      args.map((a) => (a === 'DIR' ? selfies.dir : a)),
      { TEMPORAL_ADDRESS: address },
      { timeoutMs: 20_000 },
    );
    expect(outcome.stderr).toMatch(message);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
  });

  it('exits 2 on bad configuration, naming the variable', async () => {
    const outcome = await runCli(['run', '--images', selfies.dir, '--styles', '3', '--gender', '1'], {
      TEMPORAL_ADDRESS: 'not-an-address',
    });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/TEMPORAL_ADDRESS: must be host:port/);
  });

  it('has help for every command', async () => {
    const help = await runCli(['--help'], {});
    expect(help.code).toBe(0);
    for (const command of ['run', 'campaign', 'status', 'list', 'styles', 'worker', 'simulator', 'api']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    // Developer tooling is dev/cli.ts's (npm run demo, temporal:dev, temporal:install), not the product's.
    for (const command of ['demo', 'dev-server', 'install-temporal']) {
      expect(help.stdout).not.toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    const runHelp = await runCli(['run', '--help'], {});
    expect(runHelp.stdout).toContain('Exit codes: 0 done');
  });
});

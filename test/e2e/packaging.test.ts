import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { NativeConnection } from '@temporalio/worker';
import type { Stats } from 'webpack';
import type { PipelineResult } from '@avatar-pipeline/client';
import { PipelineWorkers, startSimulator, type RunningSimulator } from '../../src/index';
import { FAST_POLLING, uniqueBasePath } from '../helpers/e2e-pipeline';
import { testConfig } from '../helpers/pipeline-worker';
import { writeSelfies } from '../helpers/selfie-files';
import { temporaryDirectory } from '../helpers/temp-dir';
import { devServerUnderTest, uniqueName } from '../helpers/temporal-env';

/*
 * Both packages as people install them: packed with `npm pack`, installed from the tarballs into
 * fresh apps (the client alone in npm's default layout, as an app developer installs it; the
 * platform with it in the linked layout, where only declared dependencies are reachable), the
 * client bundled with esbuild and webpack, a pipeline run to DONE from each bundle, and a
 * TypeScript consumer compiled under moduleResolution node16 and bundler.
 */
const run = promisify(execFile);
// Bundling, compiling and installing are CPU work: minutes on a busy two-core machine, not seconds.
jest.setTimeout(240_000);
const ROOT = path.resolve(__dirname, '../..');
const CLIENT_DIR = path.join(ROOT, 'packages/client');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const ESBUILD = path.join(ROOT, 'node_modules/.bin/esbuild');
const INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];

/** `npm pack` of the package in `dir` into `destination`; the tarball's file name. */
async function pack(dir: string, destination: string): Promise<string> {
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', destination],
    {
      cwd: dir,
    },
  );
  return (JSON.parse(stdout) as { filename: string }[])[0]!.filename;
}

/** A fresh app depending on the given tarballs, installed with npm's `strategy` layout. */
async function installApp(
  dir: string,
  tarballs: Record<string, string>,
  strategy: 'hoisted' | 'linked',
): Promise<void> {
  await mkdir(dir);
  const dependencies = Object.fromEntries(
    Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]),
  );
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'app', private: true, dependencies }),
  );
  await run('npm', [...INSTALL, `--install-strategy=${strategy}`], { cwd: dir, maxBuffer: 16 << 20 });
}

/** What an app does with the client: start a pipeline from its request and print the result. */
const APP_SOURCE = `
const { createPipelineClient } = require('@avatar-pipeline/client');

async function main() {
  const pipelines = await createPipelineClient();
  try {
    const run = await pipelines.start(JSON.parse(process.env.APP_REQUEST), { requestId: process.env.APP_REQUEST_ID });
    process.stdout.write(JSON.stringify(await run.result()));
  } finally {
    await pipelines.close();
  }
}
main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
`;

/** A typed consumer: it and the package's declarations must compile under the consumer's settings. */
const CONSUMER_SOURCE = `
import {
  createPipelineClient,
  InputError,
  PipelineFailedError,
  type PipelineClient,
  type PipelineResult,
} from '@avatar-pipeline/client';
import type { PipelineInput } from '@avatar-pipeline/client/contracts/pipeline-input';

export type Client = PipelineClient;

export async function avatarsOf(images: PipelineInput['images']): Promise<PipelineResult['generations']> {
  const pipelines = await createPipelineClient({ taskQueue: 'avatar-pipeline' });
  try {
    const run = await pipelines.start({ images, styles: [3], gender: 1 });
    return (await run.result()).generations;
  } catch (err) {
    if (err instanceof InputError) console.error(err.issues.map((issue) => \`\${issue.path}: \${issue.message}\`));
    else if (err instanceof PipelineFailedError) console.error(err.end, err.reason);
    else throw err;
    return [];
  } finally {
    await pipelines.close();
  }
}
`;

describe('the packages as users install them', () => {
  const { address, namespace } = devServerUnderTest();
  const scratch = temporaryDirectory('packaging-');
  const clientApp = path.join(scratch, 'client-app');
  const platformApp = path.join(scratch, 'platform-app');
  const bundles = path.join(scratch, 'bundles');
  let connection: NativeConnection;
  let sim: RunningSimulator;
  let worker: PipelineWorkers;
  let workerDone: Promise<void>;
  let selfies: { dir: string; files: string[] };
  let taskQueue: string;

  beforeAll(async () => {
    const [clientTarball, platformTarball] = [await pack(CLIENT_DIR, scratch), await pack(ROOT, scratch)];
    await installApp(clientApp, { '@avatar-pipeline/client': path.join(scratch, clientTarball) }, 'hoisted');
    await installApp(
      platformApp,
      {
        '@avatar-pipeline/client': path.join(scratch, clientTarball),
        'avatar-pipeline': path.join(scratch, platformTarball),
      },
      'linked',
    );

    selfies = await writeSelfies(2);
    connection = await NativeConnection.connect({ address });
    sim = await startSimulator({
      basePath: uniqueBasePath('packaging'),
      progression: { mode: 'wall', trainingMs: 500, generationMs: 300 },
      avatarsPerOrder: 2,
    });
    taskQueue = uniqueName('packaging');
    worker = await PipelineWorkers.create({
      connection,
      config: testConfig({ namespace, taskQueue, providerUrl: sim.url, imageRoots: [selfies.dir] }),
    });
    workerDone = worker.run();
  }, 600_000);

  afterAll(async () => {
    worker?.shutdown();
    await workerDone;
    await sim?.stop();
    await connection?.close();
  });

  /**
   * Runs a bundle, alone in a folder with no node_modules, in an app's environment that sets the
   * worker's and the API's variables its own way (the client must not read them).
   */
  async function pipelineFromBundle(bundle: string): Promise<PipelineResult> {
    const { stdout } = await run(process.execPath, [bundle], {
      cwd: path.dirname(bundle),
      env: {
        PATH: process.env.PATH,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        // The operator's polling floor, lowered as for the test worker's quick simulator.
        PROVIDER_POLL_MIN_INTERVAL_MS: '100',
        IMAGE_ROOTS: selfies.dir,
        // Drawn selfies, and a test worker without a check worker.
        SELFIE_CHECKS: 'false',
        AVATAR_CHECKS: 'false',
        LOG_LEVEL: 'bogus',
        LOG_FORMAT: 'pretty',
        API_PORT: 'abc',
        APP_REQUEST: JSON.stringify({
          images: selfies.files,
          styles: [3, 7],
          gender: 1,
          subjectId: uniqueName('subject'),
          polling: FAST_POLLING,
        }),
        APP_REQUEST_ID: uniqueName('order'),
      },
    });
    return JSON.parse(stdout) as PipelineResult;
  }

  test('the client installs without the platform: no worker, native code, web server or storage SDK', async () => {
    const installed = await readdir(path.join(clientApp, 'node_modules'));
    const scoped = await readdir(path.join(clientApp, 'node_modules/@temporalio'));
    expect(installed).not.toEqual(expect.arrayContaining(['avatar-pipeline']));
    expect(
      installed.filter((name) => ['sharp', 'fastify', 'webpack', '@aws-sdk', '@swc'].includes(name)),
    ).toEqual([]);
    expect(scoped.filter((name) => ['worker', 'core-bridge', 'workflow', 'activity'].includes(name))).toEqual(
      [],
    );
  });

  test('a pipeline started from the esbuild bundle of an app finishes DONE', async () => {
    await writeFile(path.join(clientApp, 'app.js'), APP_SOURCE);
    const bundle = path.join(bundles, 'esbuild', 'app.js');
    await run(
      ESBUILD,
      [
        'app.js',
        '--bundle',
        '--platform=node',
        '--target=node22',
        `--outfile=${bundle}`,
        '--log-level=error',
      ],
      {
        cwd: clientApp,
      },
    );
    expect(existsSync(path.join(path.dirname(bundle), 'node_modules'))).toBe(false);
    const result = await pipelineFromBundle(bundle);
    expect(result.status).toBe('DONE');
    expect(result.generations.map((g) => [g.styleId, g.avatars.length])).toEqual([
      [3, 2],
      [7, 2],
    ]);
  });

  test('a pipeline started from the webpack bundle of an app finishes DONE', async () => {
    await writeFile(path.join(clientApp, 'app.js'), APP_SOURCE);
    const bundle = path.join(bundles, 'webpack', 'app.js');
    const webpack = (await import('webpack')).default;
    const stats = await new Promise<Stats>((resolve, reject) =>
      webpack(
        {
          mode: 'production',
          target: 'node',
          context: clientApp,
          entry: './app.js',
          output: { path: path.dirname(bundle), filename: 'app.js' },
          optimization: { minimize: false },
        },
        (err, result) =>
          err || !result ? reject(err ?? new Error('webpack gave no stats')) : resolve(result),
      ),
    );
    expect(stats.toJson({ all: false, errors: true }).errors).toEqual([]);
    expect((await pipelineFromBundle(bundle)).status).toBe('DONE');
  });

  test.each([
    ['node16', ['--module', 'node16', '--moduleResolution', 'node16']],
    ['bundler', ['--module', 'esnext', '--moduleResolution', 'bundler']],
  ])(
    'a TypeScript consumer compiles against the declarations under moduleResolution %s',
    async (_label, flags) => {
      await writeFile(path.join(clientApp, 'consumer.ts'), CONSUMER_SOURCE);
      const args = [TSC, '--noEmit', '--strict', '--target', 'es2022', ...flags];
      args.push('--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules/@types'), 'consumer.ts');
      // tsc reports on stdout. Errors in other packages' declarations are theirs, not the app's to
      // fix here (@temporalio/common's need @types/ms, which it does not declare).
      const compiled = await run(process.execPath, args, { cwd: clientApp }).catch(
        (err: { stdout: string }) => err,
      );
      const ours = compiled.stdout
        .split('\n')
        .filter((line) => /^(consumer\.ts|node_modules\/@avatar-pipeline\/|error TS)/.test(line));
      expect(ours).toEqual([]);
    },
  );

  test('the client examples of the READMEs and docs/api.md compile against the installed package', async () => {
    const sources = ['packages/client/README.md', 'README.md', 'docs/api.md'];
    const examples = (await Promise.all(sources.map((file) => readFile(path.join(ROOT, file), 'utf8'))))
      .flatMap((text) => [...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1]!))
      .filter((code) => code.includes("from '@avatar-pipeline/client"));
    expect(examples.length).toBeGreaterThanOrEqual(5);
    // What the examples leave to the reader: the selfies an app already holds.
    const prelude = 'declare const selfieBuffer1: Buffer;\ndeclare const selfieBuffer2: Buffer;\n';
    const files = await Promise.all(
      examples.map(async (code, index) => {
        const file = `example-${index + 1}.ts`;
        await writeFile(path.join(clientApp, file), `${prelude}${code}\nexport {};\n`);
        return file;
      }),
    );
    const args = [
      TSC,
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'esnext',
      '--moduleResolution',
      'bundler',
    ];
    args.push('--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules/@types'), ...files);
    const compiled = await run(process.execPath, args, { cwd: clientApp }).catch(
      (err: { stdout: string }) => err,
    );
    expect(
      compiled.stdout
        .split('\n')
        .filter((line) => /^(example-|node_modules\/@avatar-pipeline\/|error TS)/.test(line)),
    ).toEqual([]);
  });

  test('the platform loads in the linked layout, where only declared dependencies are reachable', async () => {
    const script = [
      "const platform = require('avatar-pipeline');",
      "const client = require('@avatar-pipeline/client');",
      "if (typeof platform.PipelineWorkers !== 'function') throw new Error('no PipelineWorkers');",
      "if (platform.createPipelineClient !== client.createPipelineClient) throw new Error('two clients');",
      "process.stdout.write('loaded');",
    ].join('\n');
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: platformApp });
    expect(stdout).toBe('loaded');
    const cli = await run(
      process.execPath,
      [path.join(platformApp, 'node_modules/avatar-pipeline/bin/avatar-pipeline.js'), '--help'],
      {
        cwd: platformApp,
      },
    );
    expect(cli.stdout).toContain('worker');
  });
});

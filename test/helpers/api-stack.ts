import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../../src/simulator';
import { uniqueBasePath } from './e2e-pipeline';
import { CLI_BIN } from './run-cli';
import { devServerUnderTest, makeScratchDir, uniqueName } from './temporal-env';
import { TEST_ENV } from './test-env-vars';
import { spawnCli, startWorkerProcess, waitFor, type CliProcess } from './worker-process';

/** `avatar-pipeline api` in `cwd`, resolved with its URL once it listens on a free loopback port. */
export async function startApiProcess(
  env: Record<string, string>,
  cwd?: string,
): Promise<{ api: CliProcess; url: string }> {
  const api = spawnCli(['api', '--port', '0', '--host', '127.0.0.1'], env, cwd);
  let exited: number | string | undefined;
  void api.exited.then((code) => (exited = code));
  let url = '';
  await waitFor(
    'the API to listen',
    () => {
      if (exited !== undefined) throw new Error(`the API exited (${exited}):\n${api.output()}`);
      url = /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(api.output())?.[1] ?? '';
      return url !== '';
    },
    60_000,
  );
  return { api, url };
}

export interface ApiStack {
  /** The environment the stack's processes share, plus API_URL and API_TOKEN, for commands run against it. */
  env: Record<string, string>;
  apiUrl: string;
  token: string;
  sim: RunningSimulator;
  /** A directory whose `avatar-pipeline` runs this checkout's compiled command, and whose `temporal` is the run's Temporal CLI. */
  binDir: string;
  /** What the worker and the API processes wrote so far, for a failing test to show. */
  output(): string;
  /** Stops the simulator; the caller stops the processes (killAllSpawned). */
  stop(): Promise<void>;
}

/**
 * What a reader of the docs runs, on the run's dev server: the simulator with short timings, an
 * `avatar-pipeline worker` and `avatar-pipeline api` process (bearer `token`, links to the Temporal
 * UI), each in `dir`, with its own task queue. Selfies given by path must lie under `dir`.
 */
export async function startApiStack(
  dir: string,
  name: string,
  token: string,
  /** More variables for the worker and the API (PROVIDER_MAX_RPS, …). */
  extraEnv: Record<string, string> = {},
  /** More simulator options (avatarsPerOrder, wrongAvatars, …). */
  simulator: StartSimulatorOptions = {},
): Promise<ApiStack> {
  const { address, namespace, uiUrl } = devServerUnderTest();
  const sim = await startSimulator({
    basePath: uniqueBasePath(name),
    progression: { mode: 'wall', trainingMs: 1_500, generationMs: 300 },
    ...simulator,
  });
  const binDir = path.join(dir, '.bin');
  await mkdir(binDir, { recursive: true });
  const shim = path.join(binDir, 'avatar-pipeline');
  await writeFile(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI_BIN}" "$@"\n`);
  await chmod(shim, 0o755);
  // The examples' `temporal` is the CLI the test run found or installed (the global setup names it).
  const temporalCli = process.env[TEST_ENV.temporalCli];
  if (temporalCli) await symlink(temporalCli, path.join(binDir, 'temporal'));
  const shared: Record<string, string> = {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: uniqueName(name),
    PROVIDER_BASE_URL: sim.url,
    PROVIDER_API_KEY: 'sim-key',
    IMAGE_ROOTS: dir,
    // Outside IMAGE_ROOTS: the API and workers refuse a blob store a selfie path could name.
    BLOB_DIR: await makeScratchDir(`${name}-blobs`),
    // The tests' runs poll the fast simulator every few hundred ms.
    PROVIDER_POLL_MIN_INTERVAL_MS: '100',
    ...(uiUrl ? { TEMPORAL_UI_URL: uiUrl } : {}),
    ...extraEnv,
  };
  try {
    const worker = await startWorkerProcess(shared, dir);
    const { url, api } = await startApiProcess({ ...shared, API_TOKENS: token }, dir);
    const exits: string[] = [];
    void worker.exited.then((code) => exits.push(`worker ${code}`));
    void api.exited.then((code) => exits.push(`api ${code}`));
    return {
      env: { ...shared, API_URL: url, API_TOKEN: token },
      apiUrl: url,
      token,
      sim,
      binDir,
      output: () => `--- worker\n${worker.output()}\n--- api\n${api.output()}\n--- exits ${exits.join(' ')}`,
      stop: () => sim.stop(),
    };
  } catch (err) {
    await sim.stop();
    throw err;
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CLI_BIN, cliEnv } from './run-cli';

const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');
const COMPILED_CLI = path.join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');

/** Tests that run the real `avatar-pipeline` command need the compiled package (`npm test` builds it first). */
export function requireCompiledCli(): void {
  if (!existsSync(COMPILED_CLI)) {
    throw new Error(`${COMPILED_CLI} is missing: run \`npm run build\` first (npm test does)`);
  }
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  readonly exited: Promise<number | string>;
}

const running = new Set<ChildProcess>();

/**
 * Starts `avatar-pipeline <args>` as a child process with `env` (and PATH and HOME: see cliEnv),
 * in `cwd` (the package root unless given: another directory stands for another machine's).
 */
export function spawnCli(args: string[], env: Record<string, string>, cwd = PACKAGE_ROOT): CliProcess {
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    cwd,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  if (child.pid === undefined) throw new Error(`could not start ${CLI_BIN}`);
  return { child, pid: child.pid, output: () => output, exited };
}

/** Kills (SIGKILL) every process spawnCli started that is still running; for afterAll, whatever happened. */
export async function killAllSpawned(): Promise<void> {
  const exits = [...running].map(
    (child) =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        if (!child.kill('SIGKILL')) resolve();
      }),
  );
  await Promise.all(exits);
}

/** Polls `check` until it returns true; fails naming `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(25);
  }
}

/** A `avatar-pipeline worker` process, resolved once it has connected and is about to poll. */
export async function startWorkerProcess(env: Record<string, string>, cwd?: string): Promise<CliProcess> {
  const worker = spawnCli(['worker'], { LOG_LEVEL: 'info', ...env }, cwd);
  let exitedEarly: number | string | undefined;
  void worker.exited.then((code) => (exitedEarly = code));
  await waitFor(
    `worker ${worker.pid} to start`,
    () => {
      if (exitedEarly !== undefined) {
        throw new Error(`worker exited (${exitedEarly}) before starting:\n${worker.output()}`);
      }
      return worker.output().includes('avatar-pipeline worker started');
    },
    60_000,
  );
  return worker;
}

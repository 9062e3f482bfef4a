import { spawn } from 'node:child_process';
import path from 'node:path';

export interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const CLI_BIN = path.join(__dirname, '..', '..', 'bin', 'avatar-pipeline.js');
/** The developer commands (demo, dev-server, install-temporal), compiled from dev/cli.ts. */
export const DEV_CLI = path.join(__dirname, '..', '..', 'dist', 'dev', 'cli.js');

/**
 * The environment a CLI child gets: PATH and HOME from this process, nothing else of it (a
 * developer's own TEMPORAL_* or PROVIDER_* must not leak in), plus `env`.
 */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  // The tests' default for the quality checks (test/setup/checks-off-by-default.ts) reaches their processes too.
  const { SELFIE_CHECKS, AVATAR_CHECKS } = process.env;
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(SELFIE_CHECKS ? { SELFIE_CHECKS } : {}),
    ...(AVATAR_CHECKS ? { AVATAR_CHECKS } : {}),
    ...env,
  };
}

/**
 * Runs the installed command (`bin/avatar-pipeline.js`, the compiled code in dist/: `npm test`
 * builds it first), or another compiled script (`options.script`, e.g. DEV_CLI), as a child
 * process, and collects its exit code and both streams.
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  options: { timeoutMs?: number; cwd?: string; script?: string } = {},
): Promise<CliOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.script ?? CLI_BIN, ...args], {
      env: cliEnv(env),
      cwd: options.cwd ?? path.join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

import { spawn } from 'node:child_process';

/**
 * Runs the CLI at `bin` as its own process, as an operator would, with `args` and `env`; resolves
 * when it exits 0, rejects with the exit code and the start of its stderr otherwise. Its stdout
 * is discarded: the benchmarks time the command, not its answer.
 */
export function runCli(bin: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${args.join(' ')}: exit ${code}: ${stderr.trim().slice(0, 300)}`)),
    ),
  );
}

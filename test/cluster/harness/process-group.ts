import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

export interface GroupOptions {
  /** Names the process in errors and the log. */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr go here (appended), so a failing run can be read afterwards. */
  logFile: string;
}

const started = new Set<ProcessGroup>();

/**
 * A process started in a process group of its own (detached), so that a kill reaches everything
 * it started too (runuser's child, a shell's commands), and nothing outlives the test run.
 */
export class ProcessGroup {
  private output = '';
  readonly exited: Promise<number | string>;
  private exitedWith: number | string | undefined;

  private constructor(
    readonly options: GroupOptions,
    readonly child: ChildProcess,
    private readonly log: WriteStream,
  ) {
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      // Only the tail is kept in memory: the whole output is in the log file.
      if (this.output.length > 2_000_000) this.output = this.output.slice(-1_000_000);
      log.write(chunk);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitedWith = code ?? signal ?? 'unknown';
        started.delete(this);
        resolve(this.exitedWith);
      });
    });
  }

  static start(options: GroupOptions): ProcessGroup {
    const log = createWriteStream(options.logFile, { flags: 'a' });
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid === undefined) throw new Error(`could not start ${options.name} (${options.command})`);
    const group = new ProcessGroup(options, child, log);
    started.add(group);
    return group;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitedWith === undefined;
  }

  /** What it printed so far (the tail of it, for long runs). */
  text(): string {
    return this.output;
  }

  /** Throws, with the end of its output, if it has exited. */
  assertRunning(): void {
    if (!this.running) {
      throw new Error(
        `${this.options.name} exited (${String(this.exitedWith)}); see ${this.options.logFile}:\n${this.output.slice(-3_000)}`,
      );
    }
  }

  /** Sends `signal` to the whole group and waits for the leader to exit (SIGKILL after `graceMs`). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<number | string> {
    if (this.running) {
      signalGroup(this.pid, signal);
      // Unref'd: a group that exits early must not leave the grace timer holding Jest open.
      const timedOut = await Promise.race([
        this.exited.then(() => false),
        delay(graceMs, true, { ref: false }),
      ]);
      if (timedOut) signalGroup(this.pid, 'SIGKILL');
    }
    const how = await this.exited;
    // The leader is gone; take anything left in its group with it.
    signalGroup(this.pid, 'SIGKILL');
    this.log.end();
    return how;
  }

  /** Runs to completion; rejects with its output unless it exits 0. */
  static async run(options: GroupOptions, timeoutMs: number): Promise<string> {
    const group = ProcessGroup.start(options);
    const timer = setTimeout(() => signalGroup(group.pid, 'SIGKILL'), timeoutMs);
    const how = await group.exited.finally(() => clearTimeout(timer));
    group.log.end();
    if (how !== 0) {
      throw new Error(`${options.name} failed (${String(how)}):\n${group.text().slice(-5_000)}`);
    }
    return group.text();
  }

  /** SIGKILLs every group still running: for afterAll, whatever happened. */
  static async killAll(): Promise<void> {
    await Promise.all([...started].map((group) => group.stop('SIGKILL', 5_000)));
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    // ESRCH: the group is already gone.
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

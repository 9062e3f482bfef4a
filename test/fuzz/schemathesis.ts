import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { installAtomically } from '../../dev/devserver/atomic-install';
import { describeOutcome, runCommand } from '../../dev/devserver/run-command';
import { findPackageRoot } from '../../src/config/package-root';

const REQUIREMENTS = path.join(__dirname, 'schemathesis-requirements.txt');
const PYTHON_COMMANDS = ['python3', 'python'];

/** Schemathesis installed with its pinned dependencies, and how to run it. */
export interface Schemathesis {
  version: string;
  python: string;
  /** The install directory: put on PYTHONPATH. */
  dir: string;
}

/**
 * Schemathesis (a property-based API fuzzer, from PyPI) in `.tools/pypi/schemathesis-<version>`,
 * installed there on first use: every package pinned in schemathesis-requirements.txt, wheels only,
 * without resolving anything further, so each machine runs the same fuzzer.
 */
export async function findSchemathesis(
  toolsDir = path.join(findPackageRoot(), '.tools'),
): Promise<Schemathesis> {
  const requirements = await readFile(REQUIREMENTS, 'utf8');
  const version = /^schemathesis==(\S+)$/m.exec(requirements)?.[1];
  if (!version) throw new Error(`${REQUIREMENTS} pins no schemathesis version`);
  const python = await findPython();
  const dir = path.join(toolsDir, 'pypi', `schemathesis-${version}`);
  const entry = path.join('schemathesis', 'cli', '__init__.py');
  if (!existsSync(path.join(dir, entry))) {
    process.stderr.write(`[fuzz] installing schemathesis ${version} from PyPI into ${dir}\n`);
    await installAtomically(dir, entry, async (staging) => {
      const outcome = await runCommand(
        python,
        [
          ...['-m', 'pip', 'install', '--no-deps', '--only-binary=:all:', '--target', staging],
          ...['-r', REQUIREMENTS, '--no-input', '--disable-pip-version-check', '--progress-bar', 'off'],
        ],
        {
          env: { ...process.env, PIP_USER: '0', PIP_REQUIRE_VIRTUALENV: '0', PIP_ROOT_USER_ACTION: 'ignore' },
        },
      );
      if (outcome.kind !== 'exited' || outcome.exitCode !== 0)
        throw new Error(`pip could not install schemathesis ${version} (${describeOutcome(outcome)})`);
    });
  }
  return { version, python, dir };
}

async function findPython(): Promise<string> {
  for (const python of PYTHON_COMMANDS) {
    const outcome = await runCommand(python, ['-c', 'import sys; sys.exit(sys.version_info < (3, 9))']);
    if (outcome.kind === 'exited' && outcome.exitCode === 0) return python;
  }
  throw new Error(`Schemathesis needs Python 3.9 or later (tried ${PYTHON_COMMANDS.join(', ')})`);
}

export interface FuzzRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/**
 * `schemathesis run <args>` in `cwd`, its output collected and written to `schemathesis.log` there
 * as it comes (to follow a long run). Stopped (its whole process group) when
 * `signal` aborts, so a test that times out leaves no fuzzer running.
 */
export function runSchemathesis(
  tool: Schemathesis,
  args: readonly string[],
  options: { cwd: string; configFile: string; signal?: AbortSignal },
): Promise<FuzzRun> {
  const program = 'import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())';
  const cli = ['--config-file', options.configFile, 'run', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(tool.python, ['-c', program, ...cli], {
      cwd: options.cwd,
      env: {
        ...process.env,
        PYTHONPATH: tool.dir,
        PYTHONDONTWRITEBYTECODE: '1',
        NO_COLOR: '1',
        COLUMNS: '160',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const chunks: Buffer[] = [];
    const log = createWriteStream(path.join(options.cwd, 'schemathesis.log'));
    const collect = (chunk: Buffer) => {
      chunks.push(chunk);
      log.write(chunk);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const stop = () => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    };
    options.signal?.addEventListener('abort', stop, { once: true });
    child.once('error', reject);
    child.once('close', (exitCode, signal) => {
      options.signal?.removeEventListener('abort', stop);
      log.end();
      resolve({ exitCode, signal, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

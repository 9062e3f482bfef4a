import { execFileSync, spawn } from 'node:child_process';
import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startApiStack, type ApiStack } from '../helpers/api-stack';
import { documentedBlocks, hasPath, jsonValues, type RunnableBlock } from '../helpers/doc-blocks';
import { makeScratchDir, uniqueName, useOwnNamespace } from '../helpers/temporal-env';
import { killAllSpawned, requireCompiledCli } from '../helpers/worker-process';

/*
 * Docs as tests: every shell example of the README and docs/ either runs here,
 * as written, against a real stack (dev server, simulator, `avatar-pipeline worker` and `api`
 * processes), or says why it cannot (doc-blocks.ts). The blocks of one file run in order in one
 * directory, with the variables the docs name: API_URL, API_TOKEN, TEMPORAL_*, PROVIDER_*; the
 * variables a block sets are seen by the blocks after it, as in one terminal.
 */
const ROOT = path.join(__dirname, '..', '..');
const TOKEN = 'docs-examples-token-0123456789';
const BLOCK_TIMEOUT_MS = 120_000;

const blocks = documentedBlocks(ROOT);
const runnable = blocks.filter((b): b is RunnableBlock => b.kind === 'run');
const files = [...new Set(runnable.map((b) => b.file))];

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` with bash -e -o pipefail after the variables earlier blocks of its file left in
 * `stateFile`, and saves the upper-case variables it sets there for the next block.
 */
function runBlock(
  script: string,
  env: Record<string, string>,
  cwd: string,
  stateFile: string,
): Promise<Outcome> {
  const wrapped = [
    `__given=" $(compgen -v | tr '\\n' ' ') "`,
    `source ${JSON.stringify(stateFile)}`,
    'set -e -o pipefail',
    script,
    'set +e',
    `for __v in $(compgen -v | grep -E '^[A-Z][A-Z0-9_]*$'); do case "$__given" in *" $__v "*) ;; *) declare -p "$__v" ;; esac; done > ${JSON.stringify(stateFile)}`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', wrapped], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), BLOCK_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => requireCompiledCli());

describe('docs as tests', () => {
  test('every shell block of the README and docs/ is marked run or skip (with a reason)', () => {
    // documentedBlocks() throws on an unmarked block; what it found must include runnable ones.
    if (!process.env.DOCTEST_FILES) expect(runnable.length).toBeGreaterThan(10);
    for (const block of blocks.filter((b) => b.kind === 'skip')) expect(block.reason).not.toBe('');
  });

  describe('against a real stack', () => {
    let stack: ApiStack;
    let dir: string;
    let restoreNamespace: () => void;
    beforeAll(async () => {
      // The examples use what a reader's shell has: curl, jq, openssl (installed when missing, as the compose check does).
      execFileSync(path.join(ROOT, 'scripts', 'ensure-debian-packages.sh'), ['curl=curl', 'jq=jq'], {
        stdio: 'inherit',
      });
      restoreNamespace = await useOwnNamespace(uniqueName('docs'));
      dir = await makeScratchDir('docs-examples');
      await cp(path.join(ROOT, 'samples'), path.join(dir, 'samples'), { recursive: true });
      stack = await startApiStack(dir, 'docs', TOKEN);
    }, 120_000);
    afterAll(async () => {
      await killAllSpawned();
      await stack?.stop();
      restoreNamespace?.();
    });

    describe.each(files)('%s', (file) => {
      const stateFile = () => path.join(dir, `${file.replace(/\W/g, '_')}.state`);
      beforeAll(() => writeFile(stateFile(), ''));

      test.each(runnable.filter((b) => b.file === file).map((b) => [`line ${b.line}`, b] as const))(
        '%s',
        async (_, block) => {
          const env = {
            ...stack.env,
            PATH: `${stack.binDir}:${process.env.PATH}`,
            HOME: process.env.HOME ?? dir,
          };
          const outcome = await runBlock(block.script, env, dir, stateFile());
          const shown = `${block.file}:${block.line}\n$ ${block.script}\n--- stdout\n${outcome.stdout}\n--- stderr\n${outcome.stderr}`;
          expect({ exit: outcome.code, block: shown }).toEqual({ exit: block.exit, block: shown });
          const values = jsonValues(outcome.stdout);
          for (const dotted of block.jsonPaths) {
            expect({ path: dotted, found: values.some((v) => hasPath(v, dotted)), block: shown }).toEqual({
              path: dotted,
              found: true,
              block: shown,
            });
          }
          for (const text of block.contains) {
            expect({ text, found: (outcome.stdout + outcome.stderr).includes(text), block: shown }).toEqual({
              text,
              found: true,
              block: shown,
            });
          }
        },
        BLOCK_TIMEOUT_MS + 10_000,
      );
    });
  });
});

import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import { prepareNamespace } from '../../src/setup/prepare-namespace';
import { PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/setup/search-attribute-definitions';
import { TEST_ENV } from '../helpers/test-env-vars';

/*
 * Every test file of the temporal tier runs in a namespace of its own. Files that share one see
 * each other's workflows, and the worst of it is silent: a claim's workflow id names a provider
 * model by the simulator's host:port and model id, every simulator numbers its models from 1001,
 * and ports are reused within a run, so a file whose simulator got an earlier file's port found
 * that file's claims on "its" models and created more models than its subjects needed. The global
 * setup registers the namespaces up front, several at a time (about 1 s each one by one, which
 * would add a minute to the run); each file takes the next free one.
 */
const PREFIX = 'file-';
const AT_ONCE = 8;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- shared with jest.config.js, which is CommonJS
const TIER_DIRS = require('./temporal-tier-dirs') as string[];

function testFilesUnder(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true }).filter((name) => String(name).endsWith('.test.ts')).length;
  } catch {
    return 0;
  }
}

/** Registers one namespace per test file of the tier (and a few more), returning how many. */
export async function registerNamespacePool(connection: Connection): Promise<number> {
  const testRoot = path.resolve(__dirname, '..');
  const count = TIER_DIRS.reduce((sum, dir) => sum + testFilesUnder(path.join(testRoot, dir)), 0) + 4;
  let next = 0;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < count) {
        const name = `${PREFIX}${next++}`;
        await prepareNamespace(connection, name, PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS, () => undefined);
      }
    }),
  );
  return count;
}

/**
 * The next namespace of the pool no file has taken (a directory per taken one in the run's
 * directory, created atomically); undefined when the run has no pool (a server the developer keeps
 * running). A spent pool is an error: falling back to a shared namespace would bring back the
 * collisions the pool exists to prevent.
 */
export function takeNamespace(): string | undefined {
  const runDir = process.env[TEST_ENV.runDir];
  const poolSize = process.env[TEST_ENV.namespacePoolSize];
  if (!runDir || poolSize === undefined) return undefined;
  const size = Number(poolSize);
  const taken = path.join(runDir, 'namespaces-taken');
  mkdirSync(taken, { recursive: true });
  for (let index = 0; index < size; index++) {
    try {
      mkdirSync(path.join(taken, String(index)));
      return `${PREFIX}${index}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(
    `All ${size} test namespaces are taken: the pool counts the test files under ${TIER_DIRS.join(', ')} (test/setup/namespace-pool.ts); a file elsewhere needs its folder added there`,
  );
}

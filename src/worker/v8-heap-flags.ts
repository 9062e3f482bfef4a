import { setFlagsFromString } from 'node:v8';

/**
 * V8 heap settings the worker applies to itself (docs/operations.md, "Worker memory"), so that
 * `avatar-pipeline worker` keeps its heaps near their live data without NODE_OPTIONS. V8's own
 * limits follow the machine's memory, not the worker's: left alone, each of the worker's two heaps
 * (the main thread's and the workflow thread's) grows its young generation to 2 × 16 MB and its old
 * generation well past what survives a collection.
 *
 * - `--heap-growing-percent`: how far a heap may grow past what survived the last full collection
 *   before the next one; read at every collection, so it holds for heaps that already exist.
 * - `--semi-space-growth-factor=1`: a young generation stays at the size it has (1 MB per
 *   semi-space from the start); read whenever V8 would grow it. Starting an isolate (the SDK's
 *   workflow thread) resets it to V8's minimum of 2, so it is applied again once the workers run.
 * - `--max-semi-space-size`: the young generation of isolates started from now on (the workflow
 *   thread), for the moments the growth factor is reset.
 * - `--optimize-for-size`: V8 treats every heap as short of memory, so each full collection started
 *   by allocation is a memory-reducing one (more compaction of fragmented pages, free pages given
 *   back at once); read at every collection. It also trims some of V8's speed-for-memory caches,
 *   so it costs CPU (bench/RESULTS.md: with 1,000 pipelines open, some 50 MB less peak RSS, some 15% more
 *   worker CPU).
 *
 * A flag the operator gave Node (NODE_OPTIONS or the command line) is left as they set it; a
 * boolean one either way (`--optimize-for-size` or `--no-optimize-for-size`). Node refuses most V8
 * flags in NODE_OPTIONS (of these, it takes only `--max-semi-space-size` there); the others go on
 * Node's command line: `node --no-optimize-for-size bin/avatar-pipeline.js worker`.
 */
export const WORKER_V8_FLAGS: Readonly<Record<string, number | boolean>> = {
  'heap-growing-percent': 20,
  'semi-space-growth-factor': 1,
  'max-semi-space-size': 2,
  'optimize-for-size': true,
};

/**
 * The WORKER_V8_FLAGS not among the V8 flags given to Node in `nodeArgs`, as `--name=value`
 * (`--name` or `--no-name` for a boolean one: V8 refuses a value for those).
 */
export function workerV8Flags(nodeArgs: readonly string[]): string[] {
  // V8 takes `--a-b` and `--a_b` alike, and `--no-a` unsets `--a`.
  const given = new Set(nodeArgs.map((arg) => /^--(?:no[-_])?([^=]+)/.exec(arg)?.[1]?.replace(/_/g, '-')));
  return Object.entries(WORKER_V8_FLAGS)
    .filter(([name]) => !given.has(name))
    .map(([name, value]) => {
      if (typeof value === 'number') return `--${name}=${value}`;
      return value ? `--${name}` : `--no-${name}`;
    });
}

/** Sets workerV8Flags for this process (Node's own arguments and NODE_OPTIONS); answers them. */
export function applyWorkerV8Flags(): string[] {
  const flags = workerV8Flags([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]);
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}

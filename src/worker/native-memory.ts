/**
 * The native memory the worker gives back (docs/operations.md, "Worker memory"). glibc's malloc gives each
 * thread that allocates an arena of its own and keeps what is freed inside an arena resident; the
 * SDK core's threads free most of what they allocate while many runs start and replay, so a busy
 * worker's RSS is largely free arena space. The worker therefore
 * - caps the arenas at two, as `MALLOC_ARENA_MAX=2` would (glibc reads that variable only when
 *   the process starts, so the worker sets the same limit with `mallopt` before the SDK starts its
 *   threads; a MALLOC_ARENA_MAX the operator set is left as set), and
 * - hands the arenas' free pages back to the system every `trimEveryMs` (`malloc_trim`).
 * Both are C calls through koffi (a C FFI with prebuilt binaries), made only on Linux with glibc.
 */

/** glibc's `mallopt` parameter for the arena limit (malloc.h). */
const M_ARENA_MAX = -8;
const ARENA_MAX = 2;

export interface NativeMemoryTuning {
  /** What was done, for the worker's start log. */
  applied: string;
  stop(): void;
}

interface Glibc {
  mallopt(param: number, value: number): number;
  mallocTrim(pad: number): number;
}

/** Caps the malloc arenas and starts trimming them; does nothing where there is no glibc. */
export function tuneNativeMemory(
  trimEveryMs: number,
  env: NodeJS.ProcessEnv = process.env,
  glibc: Glibc | null = loadGlibc(),
): NativeMemoryTuning {
  if (!glibc) return { applied: 'left as is (no glibc, or the FFI did not load)', stop: () => undefined };
  const arenas =
    env.MALLOC_ARENA_MAX !== undefined
      ? `arenas ${env.MALLOC_ARENA_MAX} (MALLOC_ARENA_MAX)`
      : glibc.mallopt(M_ARENA_MAX, ARENA_MAX) === 1
        ? `arenas ${ARENA_MAX}`
        : 'arenas as glibc chooses (mallopt refused)';
  if (trimEveryMs <= 0) return { applied: `${arenas}, no trimming`, stop: () => undefined };
  const timer = setInterval(() => glibc.mallocTrim(0), trimEveryMs);
  timer.unref();
  return {
    applied: `${arenas}, free pages trimmed every ${trimEveryMs} ms`,
    stop: () => clearInterval(timer),
  };
}

function loadGlibc(): Glibc | null {
  // Elsewhere (musl, macOS, Windows) there is no libc.so.6 with these calls: loading fails, and the
  // worker leaves its memory as is.
  if (process.platform !== 'linux') return null;
  try {
    // Loaded here only: a worker elsewhere never needs the FFI.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const koffi = require('koffi') as { load(path: string): { func(signature: string): unknown } };
    const libc = koffi.load('libc.so.6');
    const mallopt = libc.func('int mallopt(int param, int value)') as (
      param: number,
      value: number,
    ) => number;
    const mallocTrim = libc.func('int malloc_trim(size_t pad)') as (pad: number) => number;
    return { mallopt, mallocTrim };
  } catch {
    return null;
  }
}

/**
 * A benchmark stopped by a signal (Ctrl-C, `kill`, a CI timeout) still stops what it started: its
 * dev server and worker processes are children, and a SIGTERM sent to the benchmark alone would
 * leave them running, holding ports, CPU and a database on tmpfs. Each thing a benchmark starts
 * registers how to stop it; the first SIGINT or SIGTERM runs every registered stop, then exits
 * with the signal's code.
 */
const stops = new Set<() => Promise<void> | void>();
let installed = false;

/** Registers `stop` to run on SIGINT/SIGTERM; the returned function unregisters it (call it once stopped). */
export function stopOnSignal(stop: () => Promise<void> | void): () => void {
  if (!installed) {
    installed = true;
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      process.once(signal, () => {
        process.stderr.write(`\n${signal}: stopping the benchmark's servers and workers\n`);
        void Promise.allSettled([...stops].map(async (each) => each())).then(() => process.exit(code));
      });
    }
  }
  stops.add(stop);
  return () => stops.delete(stop);
}

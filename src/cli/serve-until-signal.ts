import { EXIT } from './exit-codes';

/** Resolves with the first SIGINT or SIGTERM; the handlers are removed then, so a second one acts as usual. */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * The end of every long-running command (api, simulator, codec-server; dev/cli.ts's dev-server):
 * serve until a stop signal (or `untilStopped`, which tests substitute), say so on stderr, stop,
 * and exit 0.
 */
export async function serveUntilSignal(
  name: string,
  stop: () => Promise<void>,
  untilStopped: () => Promise<unknown> = stopSignal,
): Promise<void> {
  const reason = await untilStopped();
  console.error(`${name}: ${String(reason)} received, stopping`);
  await stop();
  process.exitCode = EXIT.ok;
}

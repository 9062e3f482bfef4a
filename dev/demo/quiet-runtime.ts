import { DefaultLogger, Runtime } from '@temporalio/worker';

/**
 * The worker logs every task at INFO; in the demo that would tear through the live view. Only
 * warnings and errors are shown. Must run before the first connection or worker is created.
 */
export function quietTemporalRuntime(): void {
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'WARN' }, console: {} } },
  });
}

import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers log every state change at INFO, which buries test failures. Setting the defaults
// (rather than Runtime.install) creates the native runtime only when a test needs one: an idle
// runtime would keep jest from exiting after test files that use no worker.
//
// Native (core) logs go straight to stderr rather than through a JS callback, so they never call
// into the sandbox of a test file that has finished (a worker one file leaks keeps logging). The
// price is one core warning per worker on the time-skipping server, which does not advertise a
// capability the SDK asks about.
Runtime.defaultOptions = {
  logger: new DefaultLogger('WARN'),
  telemetryOptions: { logging: { filter: { core: 'WARN', other: 'WARN' }, console: {} } },
};

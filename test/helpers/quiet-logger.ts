import type { Logger } from '@temporalio/common';

/** A logger that drops everything: for activity tests whose failures are expected and asserted. */
export const quietLogger: Logger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

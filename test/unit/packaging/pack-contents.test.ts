import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * What `npm pack` would publish of each package: the compiled code (the platform's CLI and the
 * samples its demo uses as well), README and LICENSE; no tests, benchmarks, development tools,
 * sources or screenshots.
 */
const ROOT = path.resolve(__dirname, '../../..');
const CLIENT = path.join(ROOT, 'packages/client');

function packedFiles(dir = ROOT): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

test('the platform package ships its compiled code, CLI, README and LICENSE, and nothing of development', () => {
  const files = packedFiles();
  expect(files).toEqual(
    expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'bin/avatar-pipeline.js']),
  );
  const development = files.filter((file) =>
    /^(test|bench|dev|scripts|console|docs|deploy|\.ci|\.tools)\/|^dist\/(test|bench|dev|scripts)\/|\.test\.|(^|\/)(jest|eslint)\.[^/]*$|\.ts$(?<!\.d\.ts)/.test(
      file,
    ),
  );
  expect(development).toEqual([]);
  // Built (npm test builds first): the entry points and the prebuilt workflow bundles are in it.
  if (existsSync(path.join(ROOT, 'dist/src/index.js'))) {
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/src/cli/main.js',
        'dist/worker.js',
        'dist/workflow-bundles/workflows.js',
        'dist/console/console.js',
      ]),
    );
  }
});

test('the client package ships its compiled code and type declarations, README and LICENSE only', () => {
  const files = packedFiles(CLIENT);
  expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']));
  expect(
    files.filter((file) => !/^(package\.json|README\.md|LICENSE|dist\/.+\.(js|d\.ts))$/.test(file)),
  ).toEqual([]);
  if (existsSync(path.join(CLIENT, 'dist/index.js'))) {
    // Every entry the README names, through the exports map, is in the tarball.
    const manifest = JSON.parse(readFileSync(path.join(CLIENT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string; default: string }>;
    };
    const entries = [
      '.',
      './provider',
      './selfie-store',
      './campaigns',
      './erasure',
      './contracts/pipeline-input',
    ];
    const targets = entries.flatMap((entry) => {
      const target = manifest.exports[entry] ?? manifest.exports['./*'];
      if (typeof target !== 'object') throw new Error(`no export for ${entry}`);
      const sub = entry.slice(2);
      return [target.types, target.default].map((file) => file.replace('*', sub).replace(/^\.\//, ''));
    });
    expect(files).toEqual(expect.arrayContaining(targets));
  }
});

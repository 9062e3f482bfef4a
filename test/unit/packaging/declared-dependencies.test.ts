import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { packageOf, runtimeSpecifiers } from '../../helpers/module-graph';

/*
 * Each package declares everything it loads: every package its shipped code imports at run time is
 * in its `dependencies`, not only in devDependencies or the other package's, so an install that
 * holds nothing else (npm's linked layouts, a production install) can load it.
 */
const ROOT = path.resolve(__dirname, '../../..');
const PACKAGES = [
  { name: 'avatar-pipeline', dir: '.', shipped: ['src', 'workflows', 'activities', 'worker.ts'] },
  { name: '@avatar-pipeline/client', dir: 'packages/client', shipped: ['src'] },
];

function sourceFiles(dir: string, entry: string): string[] {
  const full = path.join(ROOT, dir, entry);
  if (statSync(full).isFile()) return [full];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => path.join(full, file));
}

const builtins = new Set(builtinModules);
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtins.has(packageOf(specifier));

test.each(PACKAGES)('every package the shipped code of $name loads is its dependency', ({ dir, shipped }) => {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  // Optional peers are what an optional entry loads (the client's selfie store: the AWS SDK).
  const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
  const undeclared = new Map<string, string>();
  let files = 0;
  for (const file of shipped.flatMap((entry) => sourceFiles(dir, entry))) {
    files++;
    for (const specifier of runtimeSpecifiers(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
      const name = packageOf(specifier);
      if (!(name in declared)) undeclared.set(name, path.relative(ROOT, file));
    }
  }
  expect(files).toBeGreaterThan(50);
  expect(Object.fromEntries(undeclared)).toEqual({});
});

test('the scan sees value imports and skips type-only ones', () => {
  const source = [
    "import { parse } from 'yaml';",
    "import type { Client } from '@temporalio/client';",
    "export { z } from 'zod';",
    "const sharp = require('sharp');",
    "import 'reflect-metadata';",
    "import {\n  a,\n  b,\n} from '@scope/pkg/deep';",
  ].join('\n');
  expect(runtimeSpecifiers(`${source}\nimport { x } from './local';`).map(packageOf)).toEqual([
    'yaml',
    'zod',
    'reflect-metadata',
    '@scope/pkg',
    '.',
    'sharp',
  ]);
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

/*
 * The platform declares everything it loads: every package the shipped code imports at run time
 * (src, workflows, activities, worker.ts) is in `dependencies`, not only in devDependencies, so an
 * install that holds nothing else (npm's linked layouts, a production install) can load it.
 */
const ROOT = path.resolve(__dirname, '../../..');
const SHIPPED = ['src', 'workflows', 'activities', 'worker.ts'];
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

function sourceFiles(entry: string): string[] {
  const full = path.join(ROOT, entry);
  if (statSync(full).isFile()) return [full];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => path.join(full, file));
}

/** Bare specifiers the file loads at run time: value imports, re-exports, require and import(). */
function runtimeSpecifiers(source: string): string[] {
  const found: string[] = [];
  const statements = /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gms;
  for (const match of source.matchAll(statements)) found.push((match[1] ?? match[2])!);
  for (const match of source.matchAll(/\b(?:require|require\.resolve|import)\(\s*'([^']+)'\s*\)/g)) {
    found.push(match[1]!);
  }
  return found.filter((s) => !s.startsWith('.') && !s.startsWith('/'));
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const builtins = new Set(builtinModules);
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtins.has(packageOf(specifier));

test('every package the shipped code loads is a dependency', () => {
  const undeclared = new Map<string, string>();
  let files = 0;
  for (const file of SHIPPED.flatMap(sourceFiles)) {
    files++;
    for (const specifier of runtimeSpecifiers(readFileSync(file, 'utf8'))) {
      if (isBuiltin(specifier)) continue;
      const name = packageOf(specifier);
      if (!(name in manifest.dependencies)) undeclared.set(name, path.relative(ROOT, file));
    }
  }
  expect(files).toBeGreaterThan(100);
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
  expect(runtimeSpecifiers(source).map(packageOf)).toEqual([
    'yaml',
    'zod',
    'reflect-metadata',
    '@scope/pkg',
    'sharp',
  ]);
});

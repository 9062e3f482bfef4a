import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What TypeScript sources load at run time, read from their text: value imports, re-exports, bare
 * imports, require, require.resolve and import(). Type-only imports compile away and are skipped.
 */
export function runtimeSpecifiers(source: string): string[] {
  const found: string[] = [];
  const statements = /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gms;
  for (const match of source.matchAll(statements)) found.push((match[1] ?? match[2])!);
  for (const match of source.matchAll(/\b(?:require|require\.resolve|import)\(\s*'([^']+)'\s*\)/g)) {
    found.push(match[1]!);
  }
  return found;
}

/** The package a bare specifier names: `@scope/name` or `name`, without a deep path. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const isRelative = (specifier: string) => specifier.startsWith('.');

function resolveSource(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((file) => existsSync(file));
}

/** What the module graph from `entry` loads: its own files, and the packages with a chain to each. */
export interface ModuleGraph {
  files: string[];
  /** Every package (node builtins left out) with the first chain of files that leads to it. */
  packages: Map<string, string[]>;
}

/** The module graph from `entry`, so a test failing on a package says where to cut. */
export function moduleGraphOf(entry: string): ModuleGraph {
  const parent = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  const packages = new Map<string, string[]>();
  const chainTo = (file: string) => {
    const chain: string[] = [];
    for (let at: string | undefined = file; at; at = parent.get(at)) chain.unshift(at);
    return chain;
  };
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const specifier of runtimeSpecifiers(readFileSync(file, 'utf8'))) {
      if (isRelative(specifier)) {
        const next = resolveSource(file, specifier);
        if (next && !parent.has(next)) {
          parent.set(next, file);
          queue.push(next);
        }
      } else if (!specifier.startsWith('node:')) {
        const name = packageOf(specifier);
        if (!packages.has(name)) packages.set(name, chainTo(file));
      }
    }
  }
  return { files: [...parent.keys()], packages };
}

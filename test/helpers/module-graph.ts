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

/**
 * Where a specifier of the repository's code leads, as TypeScript resolves it (tsconfig.json maps
 * the client package to its sources): a source file, or undefined for a package or a Node built-in.
 */
export function repositorySource(root: string, from: string, specifier: string): string | undefined {
  const client = '@avatar-pipeline/client';
  if (isRelative(specifier)) return resolveSource(from, specifier);
  if (specifier === client) return resolveSource(root, './packages/client/src/index');
  if (specifier.startsWith(`${client}/`))
    return resolveSource(root, `./packages/client/src/${specifier.slice(client.length + 1)}`);
  return undefined;
}

/**
 * The import cycles among `files` (each a strongly connected set of two or more files, or a file
 * that loads itself), following the runtime imports that `next` resolves within them. `read`
 * gives a file's text.
 */
export function importCycles(
  files: readonly string[],
  next: (from: string, specifier: string) => string | undefined,
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): string[][] {
  const known = new Set(files);
  const edges = new Map(
    files.map((file) => [
      file,
      runtimeSpecifiers(read(file))
        .map((specifier) => next(file, specifier))
        .filter((to): to is string => to !== undefined && known.has(to)),
    ]),
  );
  // Tarjan's strongly connected components, iterative so a deep chain cannot overflow the stack.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  for (const start of files) {
    if (order.has(start)) continue;
    const work: { file: string; edge: number }[] = [{ file: start, edge: 0 }];
    order.set(start, order.size);
    low.set(start, order.get(start)!);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const targets = edges.get(top.file)!;
      if (top.edge < targets.length) {
        const to = targets[top.edge++]!;
        if (!order.has(to)) {
          order.set(to, order.size);
          low.set(to, order.get(to)!);
          stack.push(to);
          onStack.add(to);
          work.push({ file: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.file, Math.min(low.get(top.file)!, order.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(top.file)!));
      if (low.get(top.file) !== order.get(top.file)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== top.file);
      if (component.length > 1 || targets.includes(top.file)) cycles.push(component.sort());
    }
  }
  return cycles;
}

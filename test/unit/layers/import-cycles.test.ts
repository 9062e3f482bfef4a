import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importCycles, repositorySource, runtimeSpecifiers } from '../../helpers/module-graph';

const ROOT = path.join(__dirname, '..', '..', '..');
/** The code that ships or runs the product: what a cycle would make load half-initialised. */
const TREES = ['src', 'workflows', 'activities', 'packages/client/src', 'console', 'dev', 'scripts'];

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(file);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/**
 * A module that is part of a cycle can run before the modules it imports have finished loading,
 * and sees their exports undefined: the layers point one way, and so do the files within them.
 */
describe('import cycles', () => {
  test('the tree has none among its runtime imports (type-only imports compile away)', () => {
    const files = [
      ...TREES.flatMap((tree) => sourcesUnder(path.join(ROOT, tree))),
      path.join(ROOT, 'worker.ts'),
    ].filter((file) => existsSync(file));
    expect(files.length).toBeGreaterThan(300);
    // The imports are followed: most files load another file of the tree.
    const linked = files.filter((file) =>
      runtimeSpecifiers(readFileSync(file, 'utf8')).some(
        (s) => repositorySource(ROOT, file, s) !== undefined,
      ),
    );
    expect(linked.length).toBeGreaterThan(files.length / 2);
    const cycles = importCycles(files, (from, specifier) => repositorySource(ROOT, from, specifier));
    expect(cycles.map((cycle) => cycle.map((file) => path.relative(ROOT, file)))).toEqual([]);
  });

  test('a cycle is found and named, however long, and a type-only import makes none', () => {
    const sources: Record<string, string> = {
      '/r/a.ts': "import { b } from './b';\nexport const a = 1;",
      '/r/b.ts': "export { c } from './c';\nexport const b = 2;",
      '/r/c.ts': "import { a } from './a';\nexport const c = 3;",
      '/r/d.ts': "import type { a } from './a';\nexport const d = 4;",
      '/r/e.ts': "import { d } from './d';\nimport { e } from './e';",
    };
    const next = (from: string, specifier: string) => path.join(path.dirname(from), `${specifier}.ts`);
    expect(importCycles(Object.keys(sources), next, (file) => sources[file]!)).toEqual([
      ['/r/a.ts', '/r/b.ts', '/r/c.ts'],
      ['/r/e.ts'],
    ]);
  });
});

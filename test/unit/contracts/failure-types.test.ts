import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

const ROOT = path.join(__dirname, '..', '..', '..');
const CATALOG = path.join('packages', 'client', 'src', 'contracts', 'failure-types.ts');
/** Where failures are raised and read: product code, not tests or generated files. */
const PRODUCT_TREES = ['activities', 'workflows', 'src', path.join('packages', 'client', 'src'), 'console'];

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

describe('the failure-type catalog', () => {
  const types = Object.values(FAILURE_TYPES);

  test('holds each type once', () => {
    expect(new Set(types).size).toBe(types.length);
  });

  test('is the only place product code spells a failure type', () => {
    const spelled = PRODUCT_TREES.flatMap(sourceFiles)
      .filter((file) => file !== CATALOG)
      .flatMap((file) => {
        const text = readFileSync(path.join(ROOT, file), 'utf8');
        return types.filter((type) => text.includes(`'${type}'`)).map((type) => `${file}: '${type}'`);
      });
    expect(spelled).toEqual([]);
  });

  test('is listed for users in docs/contracts.md, every type', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'contracts.md'), 'utf8');
    expect(types.filter((type) => !doc.includes(`| \`${type}\``))).toEqual([]);
  });
});

import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The directory holding this package's package.json. Found by walking up from this file so it
 * is the same whether the code runs from TypeScript sources (tests) or from compiled `dist/`.
 */
export function findPackageRoot(startDir: string = __dirname): string {
  let dir = startDir;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json found above ${startDir}`);
    dir = parent;
  }
}

/**
 * The third part of `npm run build`: bundles the web console (console/*.tsx, Preact) with esbuild
 * into dist/console, next to its page and style sheet, where the starter API serves it at
 * /console/. One script file and one style sheet, both from the API's origin: the page needs no
 * inline script or style, so its Content-Security-Policy can forbid them.
 *
 *   node dist/scripts/build-console.js
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { CONSOLE_BUILD_DIR, CONSOLE_SOURCE_DIR } from '../src/console/console-location';

async function main(): Promise<void> {
  rmSync(CONSOLE_BUILD_DIR, { recursive: true, force: true });
  mkdirSync(CONSOLE_BUILD_DIR, { recursive: true });
  const result = await build({
    entryPoints: [path.join(CONSOLE_SOURCE_DIR, 'main.tsx')],
    outfile: path.join(CONSOLE_BUILD_DIR, 'console.js'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    tsconfig: path.join(CONSOLE_SOURCE_DIR, 'tsconfig.json'),
    metafile: true,
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'console.css', 'favicon.svg']) {
    copyFileSync(path.join(CONSOLE_SOURCE_DIR, file), path.join(CONSOLE_BUILD_DIR, file));
  }
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  console.error(
    `console bundle: ${path.relative(process.cwd(), CONSOLE_BUILD_DIR)} (${(bytes / 1e3).toFixed(0)} kB)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

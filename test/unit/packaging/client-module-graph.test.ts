import path from 'node:path';
import { readFileSync } from 'node:fs';
import { moduleGraphOf } from '../../helpers/module-graph';

/*
 * The client package is what apps embed: from its entry it must load the Temporal client side and
 * zod only, no worker, native code, web server or storage SDK, so that it installs small, starts
 * fast and bundles; and it must stand alone, loading none of the platform's files.
 */
const CLIENT_PACKAGES = ['@temporalio/client', '@temporalio/common', '@temporalio/envconfig', 'zod'];

const PACKAGE_SOURCES = path.resolve(__dirname, '../../../packages/client/src');
const entry = path.join(PACKAGE_SOURCES, 'index.ts');

test('the client package loads only files of its own', () => {
  const { files } = moduleGraphOf(entry);
  expect(files.length).toBeGreaterThan(40);
  expect(files.filter((file) => !file.startsWith(PACKAGE_SOURCES + path.sep))).toEqual([]);
});

test('the client entry loads only the Temporal client side and zod', () => {
  const loaded = moduleGraphOf(entry).packages;
  const outside = [...loaded]
    .filter(([name]) => !CLIENT_PACKAGES.includes(name))
    .map(([name, chain]) => `${name} <- ${chain.map((f) => path.relative(process.cwd(), f)).join(' <- ')}`);
  expect(outside).toEqual([]);
  expect([...loaded.keys()].sort()).toEqual([...CLIENT_PACKAGES].sort());
});

test('no file the client loads looks itself up on disk, which a bundle cannot follow', () => {
  const lookups = moduleGraphOf(entry)
    .files.filter((file) => /\brequire\.resolve\(|__dirname|__filename/.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(process.cwd(), file));
  expect(lookups).toEqual([]);
});

/** The entries that take or open a blob store: an s3:// store loads the AWS SDK. */
const STORE_ENTRIES = ['selfie-store.ts', 'campaigns.ts', 'erasure.ts'];

test.each(STORE_ENTRIES)(
  'the %s entry loads files of its own, and adds the AWS SDK only, as optional peer dependencies',
  (name) => {
    const graph = moduleGraphOf(path.join(PACKAGE_SOURCES, name));
    expect(graph.files.filter((file) => !file.startsWith(PACKAGE_SOURCES + path.sep))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(PACKAGE_SOURCES, '../package.json'), 'utf8')) as {
      peerDependenciesMeta: Record<string, { optional: boolean }>;
    };
    const beyond = [...graph.packages.keys()].filter((dep) => !CLIENT_PACKAGES.includes(dep)).sort();
    expect(beyond).toEqual(['@aws-sdk/client-s3', '@aws-sdk/s3-request-presigner']);
    for (const dep of beyond) expect(manifest.peerDependenciesMeta[dep]).toEqual({ optional: true });
  },
);

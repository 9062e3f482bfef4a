import path from 'node:path';
import { readFileSync } from 'node:fs';
import { moduleGraphOf } from '../../helpers/module-graph';

/*
 * The client (createPipelineClient and what it loads) is what apps embed: it must load the
 * Temporal client side and zod only, no worker, native code, web server or storage SDK, so that
 * it installs small, starts fast and bundles. This is the boundary the client package is cut along.
 */
const CLIENT_PACKAGES = ['@temporalio/client', '@temporalio/common', '@temporalio/envconfig', 'zod'];

const entry = path.resolve(__dirname, '../../../packages/client/src/client/pipeline-client.ts');

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

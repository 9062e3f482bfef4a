import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { registerArchiveRoute } from '../../../src/api/routes/archive';
import { createApiServer } from '../../../src/api/server';
import { BlobLinkSigner, FsBlobStore, MAX_LINK_TOKEN_LENGTH } from '../../../src/storage';
import { tinyPng } from '../../fixtures/images';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';

const root = mkdtempSync(path.join(tmpdir(), 'archive-route-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('GET /archive/{token} (filesystem store links)', () => {
  const store = new FsBlobStore(root);
  const signer = new BlobLinkSigner('link secret for the tests');
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerArchiveRoute(app, store, signer);
  let base: string;
  beforeAll(async () => {
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());
  const get = (token: string) => fetch(`${base}/archive/${token}`);

  it('serves the object a valid token names, and 404 for expired, forged or erased ones', async () => {
    const png = tinyPng(5, 5);
    await store.put('subjects/abc/avatars/1/2/3.png', png, 'image/png');
    const token = signer.sign('subjects/abc/avatars/1/2/3.png', Date.now() + 60_000);
    const ok = await get(token);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await ok.arrayBuffer()).equals(png)).toBe(true);

    const expired = signer.sign('subjects/abc/avatars/1/2/3.png', Date.now() - 1_000);
    expect((await get(expired)).status).toBe(404);
    const forged = new BlobLinkSigner('another secret of enough length').sign(
      'subjects/abc/avatars/1/2/3.png',
      Date.now() + 60_000,
    );
    expect((await get(forged)).status).toBe(404);
    await store.delete('subjects/abc/avatars/1/2/3.png');
    expect((await get(token)).status).toBe(404);
  });
});

describe('GET /archive/{token} on the API server', () => {
  it('opens a link to the longest key a store takes: the server accepts every token a link can carry', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'archive-server-'));
    const base = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    const config = {
      ...base,
      api: { ...base.api, tokens: ['archive-token-0123456789'], blobDir: root },
      storage: {
        target: { kind: 'fs' as const, dir: root },
        s3: { endpoint: undefined, region: 'us-east-1', credentials: undefined, forcePathStyle: false },
        linkSecret: 'link secret for the tests',
      },
    };
    const client = { workflow: { getHandle: () => ({}) } } as unknown as Client;
    const app = await createApiServer({ config, client, provider: {} as never });
    try {
      const origin = await app.listen({ port: 0, host: '127.0.0.1' });
      const signer = new BlobLinkSigner('link secret for the tests');
      const png = tinyPng(4, 4);
      // A real pipeline's key (its workflow id as one segment) and the longest key there can be.
      const real = `pipelines/avatar-pipeline-${'k'.repeat(112)}/avatars/1001/1002/7.png`;
      const longest = `${'a/'.repeat(440)}${'b'.repeat(900 - 880 - 4)}.png`;
      for (const key of [real, longest]) {
        await new FsBlobStore(root).put(key, png, 'image/png');
        const token = signer.sign(key, Date.now() + 60_000);
        expect(token.length).toBeLessThanOrEqual(MAX_LINK_TOKEN_LENGTH);
        const answer = await fetch(`${origin}/archive/${token}`);
        expect({ length: token.length, status: answer.status }).toEqual({
          length: token.length,
          status: 200,
        });
        expect(Buffer.from(await answer.arrayBuffer()).equals(png)).toBe(true);
      }
      // Longer than any link this API makes: the router refuses it, answered as any unknown link.
      const tooLong = await fetch(`${origin}/archive/${'x'.repeat(MAX_LINK_TOKEN_LENGTH + 1)}`);
      expect(tooLong.status).toBe(404);
      expect(await tooLong.json()).toEqual({ error: 'No such archived image', issues: [] });
    } finally {
      await app.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);

  it('documents the route in OpenAPI: an image on 200, 404 for any link it did not make, 400 for a broken path', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'archive-openapi-'));
    const base = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    const config = {
      ...base,
      api: { ...base.api, tokens: ['archive-token-0123456789'], blobDir: root },
      storage: fsStorage(root),
    };
    const client = { workflow: { getHandle: () => ({}) } } as unknown as Client;
    const app = await createApiServer({ config, client, provider: {} as never });
    try {
      await app.ready();
      const document = app.swagger() as {
        paths: Record<string, { get?: { responses: Record<string, { content: Record<string, unknown> }> } }>;
      };
      const responses = document.paths['/archive/{token}']?.get?.responses ?? {};
      expect(Object.keys(responses).sort()).toEqual(['200', '400', '404']);
      expect(Object.keys(responses['200']?.content ?? {})).toEqual(['image/png', 'image/jpeg']);
    } finally {
      await app.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

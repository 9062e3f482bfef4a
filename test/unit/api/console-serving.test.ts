import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  archiveImageOrigins,
  consoleContentSecurityPolicy,
  registerConsoleRoutes,
} from '../../../src/api/console-routes';
import type { StorageSettings } from '../../../src/storage';
import { temporaryDirectory } from '../../helpers/temp-dir';

/** The console is served at /console/ with a strict Content-Security-Policy. */
describe('the console at /console/', () => {
  let app: FastifyInstance;
  let unbuilt: FastifyInstance;

  beforeAll(async () => {
    const dir = temporaryDirectory('console-serving-');
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
    await writeFile(path.join(dir, 'console.js'), 'export {};');
    app = Fastify();
    await registerConsoleRoutes(app, { dir });
    app.get('/v1/other', () => ({ ok: true }));
    unbuilt = Fastify();
    await registerConsoleRoutes(unbuilt, { dir: path.join(dir, 'missing') });
  });
  afterAll(async () => {
    await app.close();
    await unbuilt.close();
  });

  it('serves the page and its script with a policy that allows only its own origin', async () => {
    for (const url of ['/console/', '/console/console.js']) {
      const answer = await app.inject({ url });
      expect(answer.statusCode).toBe(200);
      const policy = String(answer.headers['content-security-policy']);
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("style-src 'self'");
      expect(policy).toContain("connect-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await app.inject({ url: '/console/' })).body).toContain('<title>console</title>');
  });

  it('redirects /console to /console/, and answers unknown console files 404 under the same policy', async () => {
    const redirect = await app.inject({ url: '/console' });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('/console/');
    const missing = await app.inject({ url: '/console/nothing.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('leaves the policy off other routes', async () => {
    const other = await app.inject({ url: '/v1/other' });
    expect(other.headers['content-security-policy']).toBeUndefined();
  });

  it('says how to build the console when it is not built', async () => {
    const answer = await unbuilt.inject({ url: '/console/' });
    expect(answer.statusCode).toBe(404);
    expect(answer.body).toContain('npm run build');
  });

  it('lets images come from an S3 endpoint, whose presigned links the archived avatars are', () => {
    const storage = {
      target: { kind: 's3', bucket: 'b', prefix: '' },
      s3: {
        endpoint: 'http://127.0.0.1:7070/',
        region: 'us-east-1',
        credentials: undefined,
        forcePathStyle: true,
      },
    } as unknown as StorageSettings;
    expect(archiveImageOrigins(storage)).toEqual(['http://127.0.0.1:7070']);
    expect(consoleContentSecurityPolicy(archiveImageOrigins(storage))).toContain(
      "img-src 'self' blob: http://127.0.0.1:7070;",
    );
    expect(archiveImageOrigins(undefined)).toEqual([]);
  });
});

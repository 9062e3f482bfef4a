import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readImage } from '../../../src/images/read-image';
import { reply, startTestHttpServer, type TestHttpServer } from '../../fixtures/http-test-server';
import { tinyPng } from '../../fixtures/images';
import { InputError } from '@avatar-pipeline/client/errors';

let root: string;
let server: TestHttpServer;
const png = tinyPng(8, 8);

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'read-image-')));
  await mkdir(join(root, 'folder.png'));
  await writeFile(join(root, 'one.png'), png);
  server = await startTestHttpServer();
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const policy = () => ({ roots: [root], urlHosts: ['127.0.0.1'] });

async function refusal(reference: string, maxBytes?: number): Promise<InputError> {
  const err: unknown = await readImage(reference, policy(), { maxBytes }).then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  if (!(err instanceof InputError)) throw err;
  return err;
}

describe('readImage from files', () => {
  it('reads a file under the root', async () => {
    expect(await readImage(join(root, 'one.png'), policy())).toEqual(png);
  });

  it('refuses a directory', async () => {
    expect((await refusal(join(root, 'folder.png'))).issues[0]?.message).toBe('is not a regular file');
  });

  it('refuses a file over the size limit before reading it', async () => {
    expect((await refusal(join(root, 'one.png'), 10)).issues[0]?.message).toBe(
      `is ${png.length} bytes, more than the limit of 10 bytes`,
    );
  });
});

describe('readImage from URLs', () => {
  it('downloads from an allowed host', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    expect(await readImage(`${server.origin}/a.png`, policy())).toEqual(png);
  });

  it('refuses to follow a redirect', async () => {
    server.handle(reply(302, '', { location: 'http://169.254.169.254/latest/meta-data' }));
    expect((await refusal(`${server.origin}/a.png`)).issues[0]?.message).toMatch(
      /redirects elsewhere \(HTTP 302\)/,
    );
  });

  it('refuses a missing image', async () => {
    server.handle(reply(404, 'gone'));
    expect((await refusal(`${server.origin}/a.png`)).issues[0]?.message).toBe('was not found (HTTP 404)');
  });

  it('refuses a download over the size limit, declared or streamed', async () => {
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    expect((await refusal(`${server.origin}/a.png`, 10)).issues[0]?.message).toMatch(
      /more than the limit of 10 bytes/,
    );
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'transfer-encoding': 'chunked' });
      res.write(png.subarray(0, 20));
      res.end(png.subarray(20));
    });
    expect((await refusal(`${server.origin}/a.png`, 30)).issues[0]?.message).toBe(
      'is more than the limit of 30 bytes',
    );
  });
});

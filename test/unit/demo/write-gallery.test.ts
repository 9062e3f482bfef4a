import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { writeGallery } from '../../../dev/demo/write-gallery';
import { FsBlobStore } from '../../../src/storage';
import { tinyJpeg, tinyPng } from '../../fixtures/images';
import { startTestHttpServer, type TestHttpServer } from '../../fixtures/http-test-server';
import { temporaryDirectory } from '../../helpers/temp-dir';

describe('writeGallery', () => {
  let server: TestHttpServer;
  beforeAll(async () => {
    server = await startTestHttpServer((req, res) => {
      if (req.url?.endsWith('.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(tinyPng(6, 5));
      else if (req.url?.endsWith('.jpg')) res.writeHead(200).end(tinyJpeg());
      else if (req.url?.endsWith('.html')) res.writeHead(200).end('<html>not an image</html>');
      else res.writeHead(404).end();
    });
  });
  afterAll(() => server.close());

  const result = (urls: string[][]): PipelineResult => ({
    workflowId: 'avatar-pipeline-test/1',
    modelId: 1001,
    status: 'DONE',
    generations: urls.map((list, i) => ({
      styleId: i + 3,
      status: 'DONE',
      avatars: list.map((url, j) => ({ avatarId: 100 * i + j, imageUrl: `${server.origin}${url}` })),
    })),
  });

  it('draws archived avatars from the archive, so the provider having forgotten them does not matter', async () => {
    const outputDir = temporaryDirectory('gallery-');
    const archive = new FsBlobStore(path.join(outputDir, '.archive'));
    const archived = tinyPng(9, 7);
    await archive.put('pipelines/p/avatars/1/2/0.png', archived, 'image/png');
    const forgotten = result([['/gone.png']]);
    forgotten.generations[0]!.avatars[0]!.archiveKey = 'pipelines/p/avatars/1/2/0.png';
    const gallery = await writeGallery({
      result: forgotten,
      outputDir,
      styleNames: new Map(),
      temporalUiLink: 'http://ui',
      namespace: 'default',
      providerUrl: server.origin,
      archive,
    });
    expect(readFileSync(path.join(gallery.dir, 'images', '3-0.png')).equals(archived)).toBe(true);
  });

  it('saves every avatar beside the page and references only the saved copies', async () => {
    const outputDir = temporaryDirectory('gallery-');
    const gallery = await writeGallery({
      result: result([['/a.png', '/b.png'], ['/c.jpg']]),
      outputDir,
      styleNames: new Map([[3, 'Watercolor']]),
      temporalUiLink: 'http://ui/namespaces/default/workflows/x',
      namespace: 'default',
      providerUrl: server.origin,
      concurrency: 2,
    });
    expect(gallery.dir).toBe(path.join(outputDir, 'avatar-pipeline-test_1'));
    expect(gallery.avatarCount).toBe(3);
    expect((await readdir(path.join(gallery.dir, 'images'))).sort()).toEqual([
      '3-0.png',
      '3-1.png',
      '4-100.jpg',
    ]);
    const html = readFileSync(gallery.page, 'utf8');
    expect(html).not.toContain(server.origin + '/a.png');
    expect(html).toContain('src="images/3-0.png"');
    expect(html).toContain('width="6" height="5"');
    expect(html).toContain('Watercolor');
    expect(html).toContain('Style 4');
    const saved = JSON.parse(readFileSync(path.join(gallery.dir, 'result.json'), 'utf8')) as PipelineResult;
    expect(saved.workflowId).toBe('avatar-pipeline-test/1');
  });

  it('fails, naming the avatar, when an image cannot be fetched or is not an image', async () => {
    const outputDir = temporaryDirectory('gallery-');
    const base = {
      outputDir,
      styleNames: new Map(),
      temporalUiLink: 'x',
      namespace: 'default',
      providerUrl: 'x',
    };
    await expect(writeGallery({ ...base, result: result([['/gone']]) })).rejects.toThrow(
      /avatar 0 .* answered 404/,
    );
    await expect(writeGallery({ ...base, result: result([['/page.html']]) })).rejects.toThrow(
      /avatar 0 .* is not a PNG or JPEG/,
    );
  });
});

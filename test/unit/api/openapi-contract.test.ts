import { request } from 'node:http';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3 } from 'openapi-types';
import { createApiServer } from '../../../src/api/server';
import { MAX_LINK_TOKEN_LENGTH } from '../../../src/storage';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { openEventStream } from '../../helpers/sse-client';
import { temporaryDirectory } from '../../helpers/temp-dir';

const TOKEN = 'contract-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/**
 * What the fuzz tier (test/fuzz) found, pinned down one by one without Temporal: the document
 * declares what the API answers, and the API answers what the document declares.
 */
describe('the API keeps to its OpenAPI document', () => {
  let app: FastifyInstance;
  let base: string;
  let doc: OpenAPIV3.Document;
  const queries: string[] = [];

  beforeAll(async () => {
    const root = temporaryDirectory('api-contract-');
    const config = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    // A Temporal client whose listing is empty and remembers the visibility queries it was given.
    const client = {
      options: { namespace: 'default', loadedDataConverter: {} },
      workflowService: {
        listWorkflowExecutions: ({ query }: { query: string }) => {
          queries.push(query);
          return Promise.resolve({ executions: [], nextPageToken: Buffer.alloc(0) });
        },
      },
    } as unknown as Client;
    app = await createApiServer({
      config: {
        ...config,
        api: { ...config.api, tokens: [TOKEN], blobDir: path.join(root, 'blobs') },
        storage: fsStorage(path.join(root, 'blobs')),
      },
      client,
      provider: {} as never,
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    doc = (await (await fetch(`${base}/openapi.json`)).json()) as OpenAPIV3.Document;
  });
  afterAll(async () => {
    await app?.close();
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([url, item]) =>
      (['get', 'post', 'delete', 'put', 'patch'] as const)
        .filter((method) => item?.[method])
        .map((method) => ({ url, method, operation: item![method]! })),
    );

  /** Any method, TRACE and QUERY included (fetch refuses those). */
  function send(method: string, url: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; allow: string | undefined; body: unknown }>((resolve, reject) => {
      const req = request(`${base}${url}`, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({
            status: res.statusCode ?? 0,
            allow: res.headers.allow,
            body: text ? JSON.parse(text) : '',
          });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  test('a method a path does not serve is answered 405 with Allow, an unknown path 404', async () => {
    const trace = await send('TRACE', '/healthz');
    expect(trace).toEqual({
      status: 405,
      allow: 'GET, HEAD',
      body: { error: 'TRACE is not allowed on /healthz; it allows GET, HEAD', issues: [] },
    });
    // Before the body's rules (QUERY needs a Content-Type) and before the token check.
    expect(await send('QUERY', '/v1/pipelines/some-id')).toMatchObject({ status: 405, allow: 'GET, HEAD' });
    expect(await send('PUT', '/v1/campaigns/c-1/pause', auth)).toMatchObject({ status: 405, allow: 'POST' });
    expect(await send('OPTIONS', '/v1/pipelines')).toMatchObject({ status: 405, allow: 'GET, HEAD, POST' });
    expect((await send('TRACE', '/v1/nothing-here')).status).toBe(404);
  });

  test('every operation declares the statuses every route can give', () => {
    for (const { url, method, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      const where = `${method.toUpperCase()} ${url}`;
      if (operation.security)
        expect({ where, has401: statuses.includes('401') }).toEqual({ where, has401: true });
      if (url.startsWith('/v1/'))
        expect({ where, has429: statuses.includes('429') }).toEqual({ where, has429: true });
      if (url.startsWith('/v1/') && url.includes('{'))
        expect({ where, has422: statuses.includes('422') }).toEqual({ where, has422: true });
    }
  });

  test('the CSV and NDJSON exports declare their errors as JSON', () => {
    for (const [file, mediaType] of [
      ['results.csv', 'text/csv'],
      ['results.jsonl', 'application/x-ndjson'],
    ]) {
      const responses = doc.paths[`/v1/campaigns/{id}/${file}`]!.get!.responses as Record<
        string,
        OpenAPIV3.ResponseObject
      >;
      expect(Object.keys(responses['200']!.content!)).toEqual([mediaType]);
      expect(Object.keys(responses['401']!.content!)).toEqual(['application/json']);
      expect(Object.keys(responses['404']!.content!)).toEqual(['application/json']);
    }
  });

  test('POST /v1/campaigns documents its body (JSON or a manifest upload), which it requires', () => {
    const body = doc.paths['/v1/campaigns']!.post!.requestBody as OpenAPIV3.RequestBodyObject;
    expect(body.required).toBe(true);
    expect(Object.keys(body.content).sort()).toEqual(['application/json', 'multipart/form-data']);
  });

  test('a JSON campaign\u2019s subjects are objects, as documented: anything else is refused 422 naming it', async () => {
    const body = doc.paths['/v1/campaigns']!.post!.requestBody as OpenAPIV3.RequestBodyObject;
    const json = body.content['application/json']!.schema as OpenAPIV3.SchemaObject;
    const subjects = json.properties!.subjects as OpenAPIV3.ArraySchemaObject;
    expect((subjects.items as OpenAPIV3.SchemaObject).type).toBe('object');
    const answer = await fetch(`${base}/v1/campaigns`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ subjects: [null, 7], skipInvalid: true }),
    });
    expect(answer.status).toBe(422);
    expect(((await answer.json()) as { issues: unknown[] }).issues).toEqual([
      { path: 'subjects.0', message: 'must be a subject (a JSON object)' },
      { path: 'subjects.1', message: 'must be a subject (a JSON object)' },
    ]);
  });

  test('every multipart text field says it takes a value (minLength 1); one sent empty is refused 422 naming it', async () => {
    const forms = { '/v1/pipelines': 'selfies', '/v1/campaigns': 'manifest' } as const;
    for (const [url, fileField] of Object.entries(forms)) {
      const body = doc.paths[url]!.post!.requestBody as OpenAPIV3.RequestBodyObject;
      const form = body.content['multipart/form-data']!.schema as OpenAPIV3.SchemaObject;
      for (const [name, field] of Object.entries(form.properties!)) {
        if (name === fileField) continue;
        const { minLength, enum: values, pattern } = field as OpenAPIV3.SchemaObject;
        // Each refuses the empty string: a minimum length, a list of values or a pattern without it.
        const takesEmpty = values ? values.includes('') : pattern ? new RegExp(pattern).test('') : !minLength;
        expect({ url, name, takesEmpty }).toEqual({ url, name, takesEmpty: false });
      }
    }
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==',
      'base64',
    );
    for (const name of ['subjectId', 'mainImageIndex', 'callbackUrl', 'polling', 'review']) {
      const form = new FormData();
      form.append('selfies', new Blob([png]), 'a.png');
      form.append('styles', '3');
      form.append('gender', '1');
      form.append(name, '');
      const answer = await fetch(`${base}/v1/pipelines`, { method: 'POST', headers: auth, body: form });
      const { issues } = (await answer.json()) as { issues: { path: string }[] };
      expect({ name, status: answer.status, paths: issues.map((i) => i.path) }).toEqual({
        name,
        status: 422,
        paths: [name],
      });
    }
    const manifest = new FormData();
    manifest.append('manifest', new Blob(['subjectId,gender,styles,modelId\nu1,1,3,1001\n']), 'm.csv');
    for (const name of ['campaignId', 'maxInFlight', 'skipInvalid', 'review']) manifest.append(name, '');
    const answer = await fetch(`${base}/v1/campaigns`, { method: 'POST', headers: auth, body: manifest });
    expect(answer.status).toBe(422);
    const { issues } = (await answer.json()) as { issues: { path: string }[] };
    expect([...new Set(issues.map((i) => i.path))].sort()).toEqual([
      'campaignId',
      'maxInFlight',
      'review',
      'skipInvalid',
    ]);
  });

  test('a path parameter longer than the router takes: 404 on /archive, 422 naming it elsewhere', async () => {
    const token = 'x'.repeat(MAX_LINK_TOKEN_LENGTH + 1);
    const archive = await fetch(`${base}/archive/${token}`);
    expect(archive.status).toBe(404);
    expect(await archive.json()).toEqual({ error: 'No such archived image', issues: [] });

    const pipeline = await fetch(`${base}/v1/pipelines/${token}`, { headers: auth });
    expect(pipeline.status).toBe(422);
    expect(await pipeline.json()).toEqual({
      error: 'The request is invalid',
      issues: [{ path: 'params', message: expect.stringMatching(/longer than this route accepts/) }],
    });
  });

  test('empty filters and cursor are no filter; text the visibility store cannot hold is refused 422', async () => {
    queries.length = 0;
    const empty = await fetch(`${base}/v1/pipelines?campaignId=&subjectId=&cursor=`, { headers: auth });
    expect(empty.status).toBe(200);
    expect(queries).toHaveLength(1);
    expect(queries[0]).not.toMatch(/CampaignId|SubjectId/);

    const nul = await fetch(`${base}/v1/pipelines?campaignId=a%00b`, { headers: auth });
    expect(nul.status).toBe(422);
    const erase = await fetch(`${base}/v1/subjects/a%01b`, { method: 'DELETE', headers: auth });
    expect(erase.status).toBe(422);
    expect(queries).toHaveLength(1);
  });

  test('a well-formed cursor this listing never handed out is no such page (404)', async () => {
    const response = await fetch(`${base}/v1/pipelines?cursor=AAAAAAAAAAAA.AAAA`, { headers: auth });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toMatch(/No such page/);
  });

  test('the lists answer JSON, or a stream of `list` events when asked for text/event-stream, as declared', async () => {
    for (const [url, field] of [
      ['/v1/pipelines', 'pipelines'],
      ['/v1/campaigns', 'campaigns'],
    ] as const) {
      const ok = doc.paths[url]!.get!.responses['200'] as OpenAPIV3.ResponseObject;
      expect({ url, types: Object.keys(ok.content!).sort() }).toEqual({
        url,
        types: ['application/json', 'text/event-stream'],
      });
      const once = await fetch(`${base}${url}`, { headers: auth });
      expect(once.headers.get('content-type')).toMatch(/^application\/json/);
      const stream = await openEventStream(`${base}${url}?limit=5`, auth);
      try {
        expect(stream.status).toBe(200);
        expect(await stream.next(5_000)).toEqual({ event: 'list', data: { [field]: [] } });
      } finally {
        stream.close();
      }
      // A bad query is answered before any stream opens.
      const refused = await fetch(`${base}${url}?limit=0`, {
        headers: { ...auth, accept: 'text/event-stream' },
      });
      expect(refused.status).toBe(422);
    }
  });
});

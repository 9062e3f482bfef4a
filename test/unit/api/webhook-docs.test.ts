import SwaggerParser from '@apidevtools/swagger-parser';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { createApiServer } from '../../../src/api/server';
import { WEBHOOK_EVENT_TYPES } from '@avatar-pipeline/client/contracts/webhook-events';
import { fsStorage, testConfig } from '../../helpers/pipeline-worker';
import { temporaryDirectory } from '../../helpers/temp-dir';

type Doc = {
  'x-webhooks': Record<string, { post: { requestBody: { content: Record<string, { schema: object }> } } }>;
};

describe('the OpenAPI document describes every webhook event', () => {
  let app: FastifyInstance;
  let doc: Doc;
  beforeAll(async () => {
    const root = temporaryDirectory('webhook-docs-');
    const config = testConfig({ taskQueue: 'q', providerUrl: 'http://127.0.0.1:1', imageRoots: [root] });
    app = await createApiServer({
      config: {
        ...config,
        api: { ...config.api, tokens: ['docs-token-0123456789'], blobDir: root },
        storage: fsStorage(root),
      },
      client: {} as Client,
      provider: {} as never,
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    doc = (await (await fetch(`${base}/openapi.json`)).json()) as Doc;
  });
  afterAll(() => app?.close());

  test('one webhook per event type, and the document stays valid OpenAPI', async () => {
    expect(Object.keys(doc['x-webhooks']).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  test('style.completed carries its avatars with their archive links; every body names its webhook-id and sequence', () => {
    type Schema = { required?: string[]; properties?: Record<string, Schema>; items?: Schema };
    const bodyOf = (type: string) =>
      doc['x-webhooks'][type]!.post.requestBody.content['application/json']!.schema as Schema;
    for (const type of WEBHOOK_EVENT_TYPES) {
      expect(bodyOf(type).required).toEqual(
        expect.arrayContaining(['id', 'type', 'timestamp', 'sequence', 'source', 'data']),
      );
    }
    const data = bodyOf('style.completed').properties!.data!;
    expect(data.required).toEqual(expect.arrayContaining(['workflowId', 'modelId', 'styleId', 'avatars']));
    expect(Object.keys(data.properties!.avatars!.items!.properties!)).toEqual(
      expect.arrayContaining(['avatarId', 'imageUrl', 'archiveKey', 'archivedUrl']),
    );
  });
});

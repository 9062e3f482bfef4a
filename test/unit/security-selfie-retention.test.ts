import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import multipart from '@fastify/multipart';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import Fastify from 'fastify';
import { ApiError } from '../../src/api/api-error';
import { readMultipartUpload } from '../../src/api/multipart-upload';
import { sweepUploads } from '../../src/api/upload-janitor';
import { envSchema } from '@avatar-pipeline/client/config/env-schema';
import { selfieRetentionSchema, type SelfieRetention } from '@avatar-pipeline/client/config/selfie-retention';
import { FsBlobStore, uploadBatchPrefix, uploadClaimKey, type BlobStore } from '../../src/storage';
import { tinyPng } from '../fixtures/images';

/** Uploads are deleted when no longer needed, and a request's total is capped. */

type Run = { status: string; closeTime?: Date; stage?: string } | 'not-found' | 'unreachable';

/** A Temporal client that knows only `describe`, answering from `runs`. */
function fakeClient(runs: Record<string, Run>): Client {
  return {
    workflow: {
      getHandle: (workflowId: string) => ({
        describe: async () => {
          const run = runs[workflowId];
          if (run === undefined || run === 'not-found')
            throw new WorkflowNotFoundError('gone', workflowId, undefined);
          if (run === 'unreachable') throw new Error('14 UNAVAILABLE: connection refused');
          return {
            status: { name: run.status },
            closeTime: run.closeTime,
            typedSearchAttributes: { get: () => run.stage },
          };
        },
      }),
    },
  } as unknown as Client;
}

const HOUR = 3_600_000;
let dir: string;
let store: BlobStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'retention-'));
  store = new FsBlobStore(dir);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A batch holding one selfie, claimed `ageMs` ago for `workflowId`, or with no claim when undefined. */
async function batch(workflowId: string | undefined, ageMs = 0): Promise<string> {
  const prefix = uploadBatchPrefix(workflowId ?? 'wf-crashed', randomUUID());
  if (workflowId) {
    const claim = JSON.stringify({ workflowId, since: Date.now() - ageMs });
    await store.put(uploadClaimKey(prefix), Buffer.from(claim), 'application/json');
  }
  await store.put(`${prefix}selfie-1.png`, tinyPng(), 'image/png');
  return prefix;
}

async function remaining(): Promise<string[]> {
  const prefixes = (await store.list('')).map((o) => o.key.slice(0, o.key.lastIndexOf('/') + 1));
  return [...new Set(prefixes)].sort();
}

async function sweep(runs: Record<string, Run>, retention: SelfieRetention = { kind: 'after-training' }) {
  return sweepUploads({ store, client: fakeClient(runs), retention, graceMs: HOUR });
}

describe('upload janitor', () => {
  it('after training (the default): keeps uploads until training is over, then deletes them', async () => {
    const uploading = await batch('wf-uploading');
    const training = await batch('wf-training');
    const generating = await batch('wf-generating');
    const done = await batch('wf-done');
    const failed = await batch('wf-failed');
    const removed = await sweep({
      'wf-uploading': { status: 'RUNNING', stage: 'uploading-selfies' },
      'wf-training': { status: 'RUNNING', stage: 'training' },
      'wf-generating': { status: 'RUNNING', stage: 'generating' },
      'wf-done': { status: 'COMPLETED', closeTime: new Date(), stage: 'done' },
      'wf-failed': { status: 'TERMINATED', closeTime: new Date() },
    });
    expect(removed.sort()).toEqual([generating, done, failed].sort());
    expect(await remaining()).toEqual([uploading, training].sort());
  });

  it('after-end keeps them while the pipeline runs; a duration keeps them that long after the end', async () => {
    const generating = await batch('wf-generating');
    const ended = await batch('wf-ended');
    const runs: Record<string, Run> = {
      'wf-generating': { status: 'RUNNING', stage: 'generating' },
      'wf-ended': { status: 'COMPLETED', closeTime: new Date(Date.now() - 2 * HOUR), stage: 'done' },
    };
    expect(await sweep(runs, { kind: 'after-end-plus', ms: 12 * HOUR })).toEqual([]);
    expect(await sweep(runs, { kind: 'after-end-plus', ms: HOUR })).toEqual([ended]);
    expect(await sweep(runs, { kind: 'after-end' })).toEqual([]);
    expect(await remaining()).toEqual([generating]);
  });

  it('cleans up what a crashed or refused request left: no claim at once, a claimed run that never started past the grace period', async () => {
    const unclaimed = await batch(undefined);
    const youngNeverStarted = await batch('wf-young', 5 * 60_000);
    const oldNeverStarted = await batch('wf-old', 2 * HOUR);
    const removed = await sweep({});
    expect(removed.sort()).toEqual([unclaimed, oldNeverStarted].sort());
    expect(await remaining()).toEqual([youngNeverStarted]);
  });

  it('never sweeps what it did not make: archived avatars and other objects stay, however old', async () => {
    await store.put('subjects/abc/avatars/1/2/3.png', tinyPng(), 'image/png');
    await store.put('notes/kept.png', tinyPng(), 'image/png');
    const oldNeverStarted = await batch('wf-old', 2 * HOUR);
    expect(await sweep({})).toEqual([oldNeverStarted]);
    expect(await remaining()).toEqual(['notes/', 'subjects/abc/avatars/1/2/']);
  });

  it('keeps a batch when Temporal cannot be asked', async () => {
    const kept = await batch('wf-unknown', 2 * HOUR);
    expect(await sweep({ 'wf-unknown': 'unreachable' })).toEqual([]);
    expect(await remaining()).toEqual([kept]);
  });
});

describe('SELFIE_RETENTION and API_MAX_REQUEST_BYTES', () => {
  it.each([
    ['', { kind: 'after-training' }],
    ['after-training', { kind: 'after-training' }],
    ['after-end', { kind: 'after-end' }],
    ['30m', { kind: 'after-end-plus', ms: 30 * 60_000 }],
    ['7d', { kind: 'after-end-plus', ms: 7 * 24 * HOUR }],
  ])('SELFIE_RETENTION=%s', (text, expected) => {
    expect(selfieRetentionSchema.parse(text)).toEqual(expected);
  });

  it('refuses anything else, saying what is allowed', () => {
    const parsed = envSchema.shape.SELFIE_RETENTION.safeParse('forever');
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/after-training, after-end or a duration/);
  });

  it('defaults the total per request to 64 MiB', () => {
    expect(envSchema.shape.API_MAX_REQUEST_BYTES.parse(undefined)).toBe(64 * 1024 * 1024);
  });
});

describe('total bytes per multipart request', () => {
  it('refuses files that together pass the limit with 413 naming the field, and keeps none of them', async () => {
    const app = Fastify();
    await app.register(multipart);
    app.post('/upload', async (request, reply) => {
      try {
        const upload = await readMultipartUpload(request, store, 'wf-total', 64 * 1024, 100 * 1024);
        return { selfies: upload.selfies.length };
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return reply.code(err.statusCode).send({ error: err.message, issues: err.issues });
      }
    });
    // Each file is a whole PNG padded to 40 KB, within the per-file limit; three pass 100 KB.
    const selfie = Buffer.concat([tinyPng(), Buffer.alloc(40 * 1024)]);
    const form = (count: number) => {
      const data = new FormData();
      for (let i = 0; i < count; i++) data.append('selfies', new Blob([selfie]), `s${i}.png`);
      return data;
    };
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/upload`;
      const two = await fetch(url, { method: 'POST', body: form(2) });
      expect(await two.json()).toEqual({ selfies: 2 });
      for (const object of await store.list('')) await store.delete(object.key);

      const three = await fetch(url, { method: 'POST', body: form(3) });
      expect(three.status).toBe(413);
      expect(await three.json()).toEqual({
        error: expect.stringMatching(/larger than the limit of 102400 bytes per request/),
        issues: [
          {
            path: 'selfies',
            message: expect.stringMatching(/at most 102400 bytes together \(API_MAX_REQUEST_BYTES\)/),
          },
        ],
      });
      expect(await store.list('')).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

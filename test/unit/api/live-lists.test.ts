import Fastify, { type FastifyInstance } from 'fastify';
import { ApiError } from '../../../src/api/api-error';
import { LIST_EVENT, LiveLists } from '../../../src/api/live-lists';
import { openEventStream, type EventStreamReader } from '../../helpers/sse-client';

/** A list per tenant that the test changes by hand; every read is counted by tenant. */
const items: Record<string, string[]> = { acme: ['a1'], beta: ['b1'], other: ['o1'], gamma: ['g1'] };
const reads: Record<string, number> = {};

describe('live lists (GET /v1/pipelines and /v1/campaigns as event streams)', () => {
  let app: FastifyInstance;
  let base: string;
  let lists: LiveLists;
  const open: EventStreamReader[] = [];

  beforeAll(async () => {
    lists = new LiveLists({ perRun: 2, perToken: 3 }, 50);
    const stream = lists.define('things', async (query: { tenant: string }) => {
      reads[query.tenant] = (reads[query.tenant] ?? 0) + 1;
      return { things: [...(items[query.tenant] ?? [])] };
    });
    app = Fastify();
    app.decorateRequest('credentialKey', '');
    app.setErrorHandler((err, _request, reply) =>
      reply.code(err instanceof ApiError ? err.statusCode : 500).send({ error: String(err) }),
    );
    app.get<{ Querystring: { tenant: string; token: string } }>('/things', async (request, reply) => {
      request.credentialKey = request.query.token;
      await stream(request, reply, { tenant: request.query.tenant });
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterEach(() => {
    for (const reader of open.splice(0)) reader.close();
  });
  afterAll(async () => {
    lists.close();
    await app.close();
  });

  // Each test its own tenants and tokens: streams a test closed may still hold their places a moment.
  const follow = async (tenant: string, token: string) => {
    const reader = await openEventStream(`${base}/things?tenant=${tenant}&token=${token}`, {});
    open.push(reader);
    return reader;
  };

  test('send the list at once, then only when it changes, to every stream of it; one reader for them all', async () => {
    const first = await follow('acme', 't1');
    expect(await first.next(5_000)).toEqual({ event: LIST_EVENT, data: { things: ['a1'] } });
    const second = await follow('acme', 't1');
    // A stream that joins gets the latest list at once, from the reader already running.
    expect(await second.next(5_000)).toEqual({ event: LIST_EVENT, data: { things: ['a1'] } });
    const before = reads.acme ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 400));
    const during = (reads.acme ?? 0) - before;
    // Read again and again meanwhile, by one reader for both streams: about 400 ms / 50 ms reads, not twice that.
    expect(during).toBeGreaterThan(1);
    expect(during).toBeLessThan(12);
    // Unchanged, it was sent no more: the next event is the change.
    items.acme = ['a2', 'a1'];
    expect(await first.next(5_000)).toEqual({ event: LIST_EVENT, data: { things: ['a2', 'a1'] } });
    expect(await second.next(5_000)).toEqual({ event: LIST_EVENT, data: { things: ['a2', 'a1'] } });
  }, 15_000);

  test('keep each query to its own list (the query holds the tenant)', async () => {
    const beta = await follow('beta', 't2');
    const other = await follow('other', 't2');
    expect((await beta.next(5_000))?.data).toEqual({ things: ['b1'] });
    expect((await other.next(5_000))?.data).toEqual({ things: ['o1'] });
    items.other = ['o2'];
    expect((await other.next(5_000))?.data).toEqual({ things: ['o2'] });
    // Another tenant's change is not this list's: its next event is its own change.
    items.beta = ['b2'];
    expect((await beta.next(5_000))?.data).toEqual({ things: ['b2'] });
  }, 15_000);

  test('give a reconnecting client the current list at once', async () => {
    const first = await follow('gamma', 't3');
    await first.next(5_000);
    first.close();
    items.gamma = ['g2'];
    const again = await follow('gamma', 't3');
    // The latest list the reader has (at most one interval old), then the current one if that differs.
    let seen = await again.next(5_000);
    if (JSON.stringify(seen?.data) !== JSON.stringify({ things: ['g2'] })) seen = await again.next(5_000);
    expect(seen?.data).toEqual({ things: ['g2'] });
  }, 15_000);

  test('refuse a stream beyond the caps, per list and per token, with 429', async () => {
    await follow('cap-a', 'x');
    await follow('cap-a', 'y');
    const third = await follow('cap-a', 'z');
    expect(third.status).toBe(429);
    await follow('cap-b', 'x');
    await follow('cap-b', 'x');
    // Token x holds three streams (cap-a, cap-b twice): the cap per token.
    const fourth = await follow('cap-c', 'x');
    expect(fourth.status).toBe(429);
  });
});

import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { startInProcessStack, type InProcessStack } from '../helpers/in-process-stack';
import { logSink } from '../helpers/log-sink';
import { openEventStream } from '../helpers/sse-client';
import { apiCaller } from '../helpers/test-api';

/*
 * Browser access tokens on a real stack (dev server, workers, simulator, API, filesystem archive): an
 * app's browser token for run X streams X's events and opens X's archived avatars; on run Y it
 * gets exactly the unknown-id answer, on the list route an unknown route's, and on X an unknown id's once it has expired; and
 * after X's subject is erased it finds X unknown.
 */
const TOKEN = 'access-e2e-token-0123456789';
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

describe('browser access tokens on a real stack', () => {
  let stack: InProcessStack;
  let logged = '';

  beforeAll(async () => {
    stack = await startInProcessStack({
      name: 'access-tokens',
      tokens: [`acme:${TOKEN}`],
      selfies: 2,
      simulator: { trainingMs: 300, generationMs: 150, avatarsPerOrder: 2 },
      api: { accessTokenSecret: 'access-e2e-secret-of-32-characters!!' },
      // Warnings only, as an operator might run it: audit lines are written whatever the level.
      logger: { level: 'warn', stream: logSink((text) => (logged += text)) },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const call = apiCaller(() => stack.base, TOKEN);
  const withToken = (token: string) => apiCaller(() => stack.base, token);
  const start = async (subjectId: string) => {
    const started = await call('POST', '/v1/pipelines', {
      images: [stack.selfies.files[0]],
      styles: [3],
      gender: 1,
      subjectId,
      polling: FAST_POLLING,
    });
    expect(started.status).toBe(202);
    return (started.body as { workflowId: string }).workflowId;
  };
  const grant = async (id: string, ttlSeconds?: number) => {
    const answer = await call(
      'POST',
      `/v1/pipelines/${encodeURIComponent(id)}/access-tokens`,
      ttlSeconds === undefined ? undefined : { ttlSeconds },
    );
    expect(answer.status).toBe(201);
    return answer.body as { token: string; expiresAt: string };
  };

  test('a token for run X streams X and opens its avatars; Y, the list and X once expired or erased answer as for nothing there', async () => {
    const x = await start('u-x');
    const y = await start('u-y');
    const { token } = await grant(x);
    const runUrl = (id: string) => `/v1/pipelines/${encodeURIComponent(id)}`;

    // X's events, with the token in the query as a browser's EventSource sends it, to the result.
    const stream = await openEventStream(`${stack.base}${runUrl(x)}/events?access_token=${token}`, {});
    expect(stream.status).toBe(200);
    const names: string[] = [];
    let lastProgress:
      { styles: Array<{ stage: string; avatars?: Array<{ archivedUrl?: string }> }> } | undefined;
    for (;;) {
      const event = await stream.next(60_000);
      if (event === undefined) break;
      names.push(event.event);
      if (event.event === 'progress') lastProgress = event.data.progress;
    }
    stream.close();
    expect(names).toContain('progress');
    expect(names.at(-1)).toBe('result');
    // The done style's avatars came with the progress, before the result, linked to the archive.
    const done = lastProgress!.styles[0]!;
    expect(done.stage).toBe('done');
    expect(done.avatars).toHaveLength(2);
    for (const avatar of done.avatars!) {
      expect(avatar.archivedUrl).toMatch(new RegExp(`^${stack.base}/archive/`));
      expect((await fetch(avatar.archivedUrl!)).status).toBe(200);
    }

    // X's status, with the token as the bearer, and every archived avatar it links to.
    const status = await withToken(token)('GET', runUrl(x));
    expect(status.status).toBe(200);
    const view = status.body as {
      state: string;
      result: { generations: Array<{ avatars: Array<{ archivedUrl?: string }> }> };
    };
    expect(view.state).toBe('completed');
    const avatars = view.result.generations.flatMap((g) => g.avatars);
    expect(avatars.length).toBe(2);
    for (const avatar of avatars) {
      expect(avatar.archivedUrl).toMatch(new RegExp(`^${stack.base}/archive/`));
      const image = await fetch(avatar.archivedUrl!);
      expect(image.status).toBe(200);
      const bytes = Buffer.from(await image.arrayBuffer());
      expect(bytes.subarray(0, 4).equals(PNG_MAGIC) || bytes.subarray(0, 3).equals(JPEG_MAGIC)).toBe(true);
    }

    // Run Y, which exists: exactly what an unknown id gets.
    const unknownId = `${y}-none`;
    const unknown = await call('GET', runUrl(unknownId));
    expect(unknown.status).toBe(404);
    for (const url of [runUrl(y), `${runUrl(y)}/events`]) {
      const other = await withToken(token)('GET', url);
      expect({ url, status: other.status, text: other.text }).toEqual({
        url,
        status: unknown.status,
        text: unknown.text.split(unknownId).join(y),
      });
    }

    // The list route (and any other): the answer for a path the API does not serve.
    const noRoute = await withToken('not-a-token-of-ours-0123456789')('GET', '/v1/no-such-route');
    expect(noRoute.status).toBe(404);
    const listed = await withToken(token)('GET', '/v1/pipelines');
    expect({ status: listed.status, text: listed.text }).toEqual({
      status: 404,
      text: noRoute.text.replace('/v1/no-such-route', '/v1/pipelines'),
    });
    expect((await fetch(`${stack.base}/v1/pipelines?access_token=${token}`)).status).toBe(404);

    // A short-lived token works, then expires.
    const short = await grant(x, 3);
    expect((await withToken(short.token)('GET', runUrl(x))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(short.expiresAt) - Date.now() + 200));
    // Expired, it finds X unknown too.
    const unknownX = unknown.text.split(unknownId).join(x);
    const expired = await withToken(short.token)('GET', runUrl(x));
    expect({ status: expired.status, text: expired.text }).toEqual({ status: 404, text: unknownX });

    // Erasing X's subject deletes X from Temporal: the token then finds X unknown.
    const erased = await call('DELETE', '/v1/subjects/u-x');
    expect(erased.status).toBe(200);
    for (const url of [runUrl(x), `${runUrl(x)}/events`]) {
      let answer = await withToken(token)('GET', url);
      // Temporal deletes in the background, within moments.
      for (let i = 0; i < 300 && answer.status !== 404; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        answer = await withToken(token)('GET', url);
      }
      expect({ url, status: answer.status, text: answer.text }).toEqual({
        url,
        status: 404,
        text: unknown.text.split(unknownId).join(x),
      });
    }
    // And its archived avatars are gone with it.
    for (const avatar of avatars) expect((await fetch(avatar.archivedUrl!)).status).toBe(404);

    // The audit trail: starts, grants and the erasure, with the tenant and ids, no token or subject id.
    const audit = logged
      .split('\n')
      .filter((line) => line.includes('"audit":true'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const subjectKey = (erased.body as { subject: string }).subject;
    expect(
      audit.map(({ tenant, action, workflowId, subject, erasedRuns }) => ({
        tenant,
        action,
        workflowId,
        subject,
        erasedRuns,
      })),
    ).toEqual(
      [
        { tenant: 'acme', action: 'pipeline.start', workflowId: x },
        { tenant: 'acme', action: 'pipeline.start', workflowId: y },
        { tenant: 'acme', action: 'pipeline.access-token', workflowId: x },
        { tenant: 'acme', action: 'pipeline.access-token', workflowId: x },
        { tenant: 'acme', action: 'subject.erase', subject: subjectKey, erasedRuns: [x] },
      ].map((line) => ({ workflowId: undefined, subject: undefined, erasedRuns: undefined, ...line })),
    );
    const auditText = JSON.stringify(audit);
    for (const secret of [token, short.token, TOKEN, 'u-x', 'u-y', stack.selfies.files[0]!])
      expect(auditText).not.toContain(secret);
  }, 180_000);
});

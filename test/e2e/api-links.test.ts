import { randomBytes } from 'node:crypto';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { startApiStack, type ApiStack } from '../helpers/api-stack';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { writeSelfies } from '../helpers/selfie-files';
import { makeScratchDir } from '../helpers/temporal-env';
import { killAllSpawned, requireCompiledCli } from '../helpers/worker-process';

/*
 * Every link the API hands out opens. A pipeline started with uploaded selfies
 * and a production-like Idempotency-Key, and a campaign, through the `avatar-pipeline api`
 * process; every `links.*` URL, every `Location` header and every `archivedUrl` in their answers
 * is followed and answers 2xx (event streams: the first event is read). `cancel` is a POST, sent
 * to a run still going. (test/e2e/api-archive-links.test.ts checks that archived links outlive the
 * provider, on both stores.)
 */
const TOKEN = 'api-links-token-0123456789abcdef';

type Links = Record<string, string>;

let stack: ApiStack;
let dir: string;

beforeAll(async () => {
  requireCompiledCli();
  dir = await makeScratchDir('api-links');
  await cp(path.join(__dirname, '..', '..', 'samples'), path.join(dir, 'samples'), { recursive: true });
  stack = await startApiStack(dir, 'links', TOKEN);
}, 120_000);
afterAll(async () => {
  await killAllSpawned();
  await stack?.stop();
});

const auth = () => ({ authorization: `Bearer ${TOKEN}` });
/** Links are paths on the API, or absolute (the Temporal UI, presigned or public archive URLs). */
const absolute = (link: string) => new URL(link, stack.apiUrl).toString();

/** GETs `link` (with the token when it is the API's) and returns its status; an event stream's first event is read. */
async function open(link: string): Promise<{ link: string; status: number }> {
  const url = absolute(link);
  const ours = url.startsWith(stack.apiUrl);
  const controller = new AbortController();
  const answer = await fetch(url, { headers: ours ? auth() : {}, signal: controller.signal });
  if (answer.headers.get('content-type')?.startsWith('text/event-stream')) {
    const reader = answer.body!.getReader();
    let text = '';
    while (!/\nevent: \w+/.test(`\n${text}`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    expect(text).toMatch(/event: (progress|result|error)/);
    controller.abort();
  } else {
    await answer.arrayBuffer();
  }
  return { link, status: answer.status };
}

async function expectAllOpen(links: string[]): Promise<void> {
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) {
    const { status } = await open(link);
    expect({ link, ok: status >= 200 && status < 300, status }).toEqual({ link, ok: true, status });
  }
}

async function startPipeline(key: string, styles: string): Promise<{ location: string; links: Links }> {
  const selfies = await writeSelfies(2, 'api-links-selfies-');
  const form = new FormData();
  for (const file of selfies.files) {
    form.append('selfies', new Blob([await readFile(file)], { type: 'image/png' }), path.basename(file));
  }
  form.append('styles', styles);
  form.append('gender', '1');
  form.append('polling', JSON.stringify(FAST_POLLING));
  const answer = await fetch(`${stack.apiUrl}/v1/pipelines`, {
    method: 'POST',
    headers: { ...auth(), 'idempotency-key': key },
    body: form,
  });
  expect(answer.status).toBe(202);
  const body = (await answer.json()) as { links: Links };
  return { location: answer.headers.get('location')!, links: body.links };
}

/** An Idempotency-Key as long as the API takes, with a tenant prefix and a colon, as a shop would send. */
const productionLikeKey = () => `tenant-7:order:${randomBytes(64).toString('hex')}`.slice(0, 112);

test('a pipeline started with uploads: Location, every links.* (self, cancel, temporalUi), and every archivedUrl of its result open', async () => {
  const { location, links } = await startPipeline(productionLikeKey(), '3,5');
  expect(location).toBe(links.self);
  expect(Object.keys(links).sort()).toEqual(
    ['cancel', 'self', ...(stack.env.TEMPORAL_UI_URL ? ['temporalUi'] : [])].sort(),
  );
  await expectAllOpen([
    location,
    links.self!,
    `${links.self}/events`,
    ...(links.temporalUi ? [links.temporalUi] : []),
  ]);

  // Wait for the end through the events link, then every archived avatar.
  await open(`${links.self}/events`);
  let view: { state: string; result?: { generations: Array<{ avatars: Array<{ archivedUrl?: string }> }> } };
  for (;;) {
    view = (await (await fetch(absolute(links.self!), { headers: auth() })).json()) as typeof view;
    if (view.state !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  expect(view.state).toBe('completed');
  const archived = view.result!.generations.flatMap((g) => g.avatars.map((a) => a.archivedUrl!));
  expect(archived.every((url) => typeof url === 'string')).toBe(true);
  await expectAllOpen(archived);

  // The cancel link, on a run still going: a POST, answered 2xx.
  const running = await startPipeline(productionLikeKey(), '7');
  const cancelled = await fetch(absolute(running.links.cancel!), { method: 'POST', headers: auth() });
  expect({ link: running.links.cancel, status: cancelled.status }).toEqual({
    link: running.links.cancel,
    status: 202,
  });
}, 180_000);

test('a campaign: its Location and every links.* (self, summary, events, results) open', async () => {
  const answer = await fetch(`${stack.apiUrl}/v1/campaigns`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({
      campaignId: `tenant-7:campaign:${randomBytes(16).toString('hex')}`,
      subjects: [
        {
          subjectId: 'links-subject',
          gender: 1,
          styles: [3],
          selfies: [path.join(dir, 'samples', 'selfies')],
        },
      ],
    }),
  });
  const body = (await answer.json()) as { links: Links };
  expect({ status: answer.status, body }).toEqual({ status: 202, body: expect.anything() });
  expect(answer.headers.get('location')).toBe(body.links.self);
  await expectAllOpen([answer.headers.get('location')!, ...Object.values(body.links)]);
}, 180_000);

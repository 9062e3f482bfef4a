import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startApiStack, type ApiStack } from '../helpers/api-stack';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { writeFaceSelfies } from '../helpers/face-selfies';
import { makeScratchDir } from '../helpers/temporal-env';
import { killAllSpawned, requireCompiledCli } from '../helpers/worker-process';

/*
 * Selfies are checked on the check worker before anything reaches the provider. Through
 * the `avatar-pipeline api` and `worker` processes with SELFIE_CHECKS on, on real photographs: a set
 * holding a photo with no face, and one holding another person, are each refused with 422 naming the
 * selfie, and the provider gets no write; a set of one person starts and ends DONE. A campaign's
 * subject is checked in its pipeline: the one with another person fails, naming the selfie, and
 * creates no model.
 */
const TOKEN = 'selfie-checks-token-0123456789abcdef';

let stack: ApiStack;
let selfies: Awaited<ReturnType<typeof writeFaceSelfies>>;

beforeAll(async () => {
  requireCompiledCli();
  const dir = await makeScratchDir('selfie-checks');
  selfies = await writeFaceSelfies(path.join(dir, 'selfies'));
  stack = await startApiStack(dir, 'checks', TOKEN, { SELFIE_CHECKS: 'true' });
}, 120_000);
afterAll(async () => {
  await killAllSpawned();
  await stack?.stop();
});

const auth = () => ({ authorization: `Bearer ${TOKEN}` });

async function startWithUploads(files: string[]): Promise<Response> {
  const form = new FormData();
  for (const file of files) {
    const type = file.endsWith('.png') ? 'image/png' : 'image/jpeg';
    form.append('selfies', new Blob([await readFile(file)], { type }), path.basename(file));
  }
  form.append('styles', '3');
  form.append('gender', '1');
  form.append('polling', JSON.stringify(FAST_POLLING));
  return fetch(`${stack.apiUrl}/v1/pipelines`, { method: 'POST', headers: auth(), body: form });
}

/** What a run sends the provider: a refused set must not have caused any of it. */
function providerWrites(): number {
  const { totals } = stack.sim.stats();
  return totals.modelsCreated + totals.uploads + totals.runs + totals.generationOrdersCreated;
}

test('uploads holding a photo with no face: 422 naming it, nothing reaches the provider', async () => {
  const answer = await startWithUploads([...selfies.collins, selfies.noFace]);
  expect(answer.status).toBe(422);
  expect(await answer.json()).toMatchObject({ issues: [{ path: 'images.3', message: 'shows no face' }] });
  expect(providerWrites()).toBe(0);
}, 120_000);

test('paths holding another person: 422 naming that selfie, nothing reaches the provider', async () => {
  const answer = await fetch(`${stack.apiUrl}/v1/pipelines`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({
      images: [selfies.collins[0], selfies.hopper, selfies.collins[2]],
      styles: [3],
      gender: 1,
      polling: FAST_POLLING,
    }),
  });
  expect(answer.status).toBe(422);
  const body = (await answer.json()) as { issues: { path: string; message: string }[] };
  expect(body.issues).toEqual([
    {
      path: 'images.1',
      message: expect.stringMatching(/^shows another person than images\.0 \(face distance/),
    },
  ]);
  expect(providerWrites()).toBe(0);
}, 120_000);

test('three photographs of one person pass and the run ends DONE', async () => {
  const answer = await startWithUploads(selfies.collins);
  expect(answer.status).toBe(202);
  const { workflowId } = (await answer.json()) as { workflowId: string };
  let state = 'running';
  for (let i = 0; i < 240 && state === 'running'; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const run = await fetch(`${stack.apiUrl}/v1/pipelines/${workflowId}`, { headers: auth() });
    state = ((await run.json()) as { state: string }).state;
  }
  expect(state).toBe('completed');
  expect(stack.sim.stats().totals.modelsCreated).toBe(1);
}, 180_000);

test('a campaign subject with another person: its pipeline fails naming the selfie, before any provider write', async () => {
  const modelsBefore = stack.sim.stats().totals.modelsCreated;
  const answer = await fetch(`${stack.apiUrl}/v1/campaigns`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({
      campaignId: `checks-${Date.now()}`,
      subjects: [
        { subjectId: 'one-person', gender: 1, styles: [3], selfies: selfies.collins.slice(0, 2) },
        { subjectId: 'two-people', gender: 1, styles: [3], selfies: [selfies.collins[0], selfies.hopper] },
      ],
    }),
  });
  const started = (await answer.json()) as { links: Record<string, string> };
  expect({ status: answer.status, started }).toEqual({
    status: 202,
    started: expect.objectContaining({ links: expect.anything() }),
  });
  const { links } = started;
  let status = 'RUNNING';
  for (let i = 0; i < 240 && status === 'RUNNING'; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const read = await fetch(new URL(links.self!, stack.apiUrl), { headers: auth() });
    status = ((await read.json()) as { status: string }).status;
  }
  expect(status).toBe('COMPLETED');
  const summary = await fetch(new URL(links.summary!, stack.apiUrl), { headers: auth() });
  expect(await summary.json()).toMatchObject({
    succeeded: 1,
    failed: 1,
    subjects: [
      { subjectId: 'one-person', status: 'DONE' },
      {
        subjectId: 'two-people',
        status: 'FAILED',
        error: expect.stringMatching(
          /^Selfies refused:\n {2}images\.1: shows another person than images\.0 \(face distance/,
        ),
      },
    ],
  });
  // Only the subject of one person reached the provider.
  expect(stack.sim.stats().totals.modelsCreated).toBe(modelsBefore + 1);
}, 180_000);

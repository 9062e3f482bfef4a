import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { startApiStack, type ApiStack } from '../helpers/api-stack';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { writeFaceSelfies } from '../helpers/face-selfies';
import { makeScratchDir } from '../helpers/temporal-env';
import { killAllSpawned, requireCompiledCli } from '../helpers/worker-process';

/*
 * Avatars are checked when a style's order is done. Through the `avatar-pipeline api` and
 * `worker` processes with AVATAR_CHECKS on (one regeneration), on real photographs: the simulator's
 * first order of style 5 shows another person, and every order of style 7 the picture the NSFW
 * classifier flags. Style 5 is ordered again once and its result holds only the person; style 7's
 * avatars are reported with their reasons, never as passed. A later generation under the model
 * compares its avatars with the face its training recorded.
 */
const TOKEN = 'avatar-checks-token-0123456789abcdef';
const ANOTHER_PERSON_STYLE = 5;
const UNSAFE_STYLE = 7;
const SUBJECT = 'person-with-checks';

/** The files under `dir` whose path matches `pattern`. */
async function filesUnder(dir: string, pattern: RegExp): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => pattern.test(file));
}

let stack: ApiStack;
let selfies: Awaited<ReturnType<typeof writeFaceSelfies>>;

beforeAll(async () => {
  requireCompiledCli();
  const dir = await makeScratchDir('avatar-checks');
  selfies = await writeFaceSelfies(path.join(dir, 'selfies'));
  stack = await startApiStack(
    dir,
    'avatar-checks',
    TOKEN,
    { SELFIE_CHECKS: 'true', AVATAR_CHECKS: 'true', AVATAR_CHECK_REGENERATIONS: '1' },
    {
      avatarsPerOrder: 4,
      wrongAvatars: {
        [ANOTHER_PERSON_STYLE]: { shows: 'another-person', orders: 1 },
        [UNSAFE_STYLE]: { shows: 'unsafe', orders: 100 },
      },
    },
  );
}, 120_000);
afterAll(async () => {
  await killAllSpawned();
  await stack?.stop();
});

const auth = () => ({ authorization: `Bearer ${TOKEN}` });

interface RunView {
  state: string;
  result?: PipelineResult;
  error?: { details?: { generations?: PipelineResult['generations'] } };
}

const failedPolls: string[] = [];

async function ended(workflowId: string): Promise<RunView> {
  for (let i = 0; i < 480; i += 1) {
    const answer = await fetch(`${stack.apiUrl}/v1/pipelines/${workflowId}`, { headers: auth() }).catch(
      (err: unknown) => {
        // Seen once in a few runs on 2 busy cores: a poll's connection closed without an answer
        // (docs/testing.md, "Known"). A poller asks again, as any client of the API would.
        failedPolls.push(String((err as Error).cause ?? err));
        return undefined;
      },
    );
    if (answer === undefined) {
      expect(failedPolls.length).toBeLessThan(3);
      continue;
    }
    const view = (await answer.json()) as RunView;
    if (view.state !== 'running') return view;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${workflowId} did not end`);
}

test('a style showing another person is ordered again once; one flagged unsafe is reported, not passed', async () => {
  const form = new FormData();
  for (const file of selfies.collins) {
    const type = file.endsWith('.png') ? 'image/png' : 'image/jpeg';
    form.append('selfies', new Blob([await readFile(file)], { type }), path.basename(file));
  }
  form.append('styles', `3,${ANOTHER_PERSON_STYLE},${UNSAFE_STYLE}`);
  form.append('gender', '1');
  form.append('subjectId', SUBJECT);
  form.append('polling', JSON.stringify(FAST_POLLING));
  const answer = await fetch(`${stack.apiUrl}/v1/pipelines`, { method: 'POST', headers: auth(), body: form });
  expect(answer.status).toBe(202);
  const { workflowId } = (await answer.json()) as { workflowId: string };
  const view = await ended(workflowId);
  expect(view.state).toBe('completed');
  const result = view.result!;
  expect(result.status).toBe('PARTIAL');
  const byStyle = new Map(result.generations.map((g) => [g.styleId, g]));
  const passed = { passed: true, reasons: [] };

  const plain = byStyle.get(3)!;
  expect({ status: plain.status, attempts: plain.attempts }).toEqual({ status: 'DONE', attempts: 1 });
  expect(plain.avatars.map((a) => a.check)).toEqual([passed, passed, passed, passed]);

  const regenerated = byStyle.get(ANOTHER_PERSON_STYLE)!;
  expect(regenerated).toMatchObject({ status: 'DONE', attempts: 2 });
  expect(regenerated.replacedOrders).toEqual([{ orderId: expect.any(Number), failedAvatars: 4 }]);
  expect(regenerated.orderId).not.toBe(regenerated.replacedOrders![0]!.orderId);
  // Only the person: the replaced order's avatars are not in the result.
  expect(regenerated.avatars.map((a) => a.check)).toEqual([passed, passed, passed, passed]);
  expect(regenerated.avatars.every((a) => a.archiveKey?.includes(`/${regenerated.orderId}/`))).toBe(true);

  const unsafe = byStyle.get(UNSAFE_STYLE)!;
  expect(unsafe).toMatchObject({
    status: 'ERROR',
    attempts: 2,
    error: 'every avatar failed its checks after 2 orders: is flagged as unsafe',
  });
  expect(unsafe.avatars).toHaveLength(4);
  for (const avatar of unsafe.avatars) {
    expect(avatar.check).toEqual({
      passed: false,
      reasons: [expect.stringMatching(/^is flagged as unsafe \(Porn 0\.\d\d/)],
    });
  }
  // Orders: one model, styles 3 once, 5 twice, 7 twice.
  expect(stack.sim.stats().totals.generationOrdersCreated).toBe(5);

  // A later generation under the model: its avatars are compared with the face its training recorded.
  const more = await fetch(`${stack.apiUrl}/v1/models/${result.modelId}/generations`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ styles: [ANOTHER_PERSON_STYLE], gender: 1, polling: FAST_POLLING }),
  });
  expect(more.status).toBe(202);
  const later = await ended(((await more.json()) as { workflowId: string }).workflowId);
  expect(later.state).toBe('completed');
  expect(later.result!.generations).toEqual([
    expect.objectContaining({ styleId: ANOTHER_PERSON_STYLE, status: 'DONE', attempts: 1 }),
  ]);
  expect(later.result!.generations[0]!.avatars.map((a) => a.check)).toEqual([passed, passed, passed, passed]);

  // The recorded face is the subject's: erasing the subject removes it with the avatars.
  const blobs = stack.env.BLOB_DIR!;
  expect(await filesUnder(blobs, /\/faces\/model-\d+\.json$/)).toHaveLength(1);
  const erased = await fetch(`${stack.apiUrl}/v1/subjects/${SUBJECT}`, { method: 'DELETE', headers: auth() });
  expect(erased.status).toBe(200);
  expect(await filesUnder(blobs, /\/(faces|avatars)\//)).toEqual([]);
}, 420_000);

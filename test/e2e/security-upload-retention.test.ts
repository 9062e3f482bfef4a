import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { SelfieRetention } from '@avatar-pipeline/client/config/selfie-retention';
import { sweepUploads, uploadedBatches } from '../../src/api/upload-janitor';
import { FsBlobStore } from '../../src/storage';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { startInProcessStack, type InProcessStack } from '../helpers/in-process-stack';
import { writeSelfies } from '../helpers/selfie-files';

/*
 * Uploads end to end: claimed for their pipeline before the start, kept while training needs
 * them, then deleted by the run itself (SELFIE_RETENTION=after-training) while its styles are
 * still generating; under after-end they stay until the run has ended and the janitor sweeps.
 */
const TOKEN = 'retention-token-0123456789';

async function startWithUploads(stack: InProcessStack): Promise<string> {
  const form = new FormData();
  const upload = await writeSelfies(2, 'retention-upload-');
  for (const file of upload.files)
    form.append('selfies', new Blob([await readFile(file)]), path.basename(file));
  form.append('styles', '3');
  form.append('gender', '1');
  form.append('polling', JSON.stringify(FAST_POLLING));
  const response = await fetch(`${stack.base}/v1/pipelines`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: form,
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { workflowId: string }).workflowId;
}

/** The run's stage and Temporal status, read through the API as a caller would. */
async function runState(
  stack: InProcessStack,
  workflowId: string,
): Promise<{ stage: string; status: string }> {
  const response = await fetch(`${stack.base}/v1/pipelines/${encodeURIComponent(workflowId)}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await response.json()) as { state: string; progress?: { stage?: string } };
  return { stage: body.progress?.stage ?? '', status: body.state };
}

describe.each<[string, SelfieRetention]>([
  ['after-training', { kind: 'after-training' }],
  ['after-end', { kind: 'after-end' }],
])('uploaded selfies under SELFIE_RETENTION=%s', (name, retention) => {
  let stack: InProcessStack;

  beforeAll(async () => {
    stack = await startInProcessStack({
      name: `retention-${name}`,
      tokens: [TOKEN],
      selfies: 2,
      // Generation outlasts training by far, so "deleted while generating" is seen, not raced.
      simulator: { trainingMs: 300, generationMs: 6_000 },
      archive: false,
      api: { selfieRetention: retention },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('are claimed for the run, kept while training needs them, and deleted when the policy says', async () => {
    const workflowId = await startWithUploads(stack);
    const store = new FsBlobStore(stack.blobDir);
    const batches = await uploadedBatches(store);
    expect(batches).toEqual([expect.objectContaining({ workflowId })]);
    expect(batches[0]!.keys).toHaveLength(3); // two selfies and the claim

    // Wait until the run is generating: training is over.
    for (let state = await runState(stack, workflowId); state.stage !== 'generating';) {
      expect(state.status).toBe('running');
      await delay(100);
      state = await runState(stack, workflowId);
    }
    const handle = stack.env.client.workflow.getHandle(workflowId);
    if (retention.kind === 'after-training') {
      // The run deletes them itself, before any generation is ordered, while it is still running.
      const events = (await handle.fetchHistory()).events ?? [];
      const activities = events.flatMap(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
      );
      const deletion = activities.indexOf('deleteUploadedSelfies');
      expect(deletion).toBeGreaterThan(activities.indexOf('runOrder'));
      for (let i = 0; (await store.list('uploads/')).length > 0; i++) {
        expect(i).toBeLessThan(100); // 10 s
        await delay(100);
      }
      expect((await runState(stack, workflowId)).status).toBe('running');
      await handle.result();
      expect(await sweepUploads({ store, client: stack.env.client, retention })).toEqual([]);
    } else {
      // Kept until the end, however long generation takes, then swept by the janitor.
      expect(await store.list('uploads/')).toHaveLength(3);
      await handle.result();
      expect(await store.list('uploads/')).toHaveLength(3);
      expect(await sweepUploads({ store, client: stack.env.client, retention })).toEqual([
        batches[0]!.prefix,
      ]);
    }
    expect(await store.list('uploads/')).toEqual([]);
  });
});

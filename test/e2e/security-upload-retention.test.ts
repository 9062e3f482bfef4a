import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sweepUploads, uploadedBatches } from '../../src/api/upload-janitor';
import { FsBlobStore } from '../../src/storage';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { startInProcessStack, type InProcessStack } from '../helpers/in-process-stack';
import { writeSelfies } from '../helpers/selfie-files';

/*
 * Issue 14, finding 8, end to end: an upload is claimed for its pipeline before the start, kept
 * while the pipeline needs it, and deleted by the janitor once the pipeline is past training.
 */
const TOKEN = 'retention-token-0123456789';

describe('uploaded selfies are deleted once their pipeline no longer needs them', () => {
  let stack: InProcessStack;

  beforeAll(async () => {
    stack = await startInProcessStack({
      name: 'retention',
      tokens: [TOKEN],
      selfies: 2,
      simulator: { trainingMs: 300, generationMs: 200 },
      archive: false,
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('claims the upload for the run, keeps it for the run, and the janitor deletes it after the run', async () => {
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
    const { workflowId } = (await response.json()) as { workflowId: string };

    const store = new FsBlobStore(stack.blobDir);
    const batches = await uploadedBatches(store);
    expect(batches).toEqual([expect.objectContaining({ workflowId })]);
    const { prefix } = batches[0]!;

    await stack.env.client.workflow.getHandle(workflowId).result();
    const removed = await sweepUploads({
      store,
      client: stack.env.client,
      retention: { kind: 'after-training' },
    });
    expect(removed).toEqual([prefix]);
    expect(await store.list('uploads/')).toEqual([]);
  });
});

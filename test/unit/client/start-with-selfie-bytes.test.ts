import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { startWithSelfieBytes } from '@avatar-pipeline/client/client/selfie-bytes';
import { memoryStore } from '../../helpers/memory-selfie-store';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { syntheticSelfiePng } from '../../../src/samples/synthetic-selfie';

/*
 * What a start with byte selfies leaves stored, in each way the start can end. Temporal is a fake
 * here: its start and describe answer as each case needs, in the order the case forces.
 */
const selfie = syntheticSelfiePng(1, 64);
const request = { images: [selfie, selfie], styles: [3], gender: 1 as const };
const options = { ...placementFrom({ taskQueue: 'avatar-pipeline' }), requestId: 'order-8812' };

/** A Temporal client whose start and describe do what the case says; it records the starts. */
function fakeTemporal(behaviour: { start: () => Promise<unknown>; exists: () => Promise<boolean> }) {
  const starts: unknown[] = [];
  const client = {
    options: { loadedDataConverter: { payloadCodecs: [] } },
    workflow: {
      start: (_type: string, startOptions: unknown) => {
        starts.push(startOptions);
        return behaviour.start();
      },
      getHandle: (workflowId: string) => ({
        workflowId,
        describe: async () => {
          if (await behaviour.exists()) return { status: { name: 'RUNNING' } };
          throw new WorkflowNotFoundError('not found', workflowId, undefined);
        },
      }),
    },
  };
  return { client: client as unknown as Client, starts };
}

describe('starting with selfies as bytes', () => {
  test('a request id that already started a run answers it, storing and starting nothing', async () => {
    const store = memoryStore();
    const { client, starts } = fakeTemporal({
      start: () => Promise.resolve(),
      exists: () => Promise.resolve(true),
    });
    const handle = await startWithSelfieBytes(client, request, options, { store, roots: undefined });
    expect(handle.workflowId).toBe('default.avatar-pipeline-order-8812');
    expect(starts).toEqual([]);
    expect(store.objects.size).toBe(0);
  });

  test('a started run keeps its selfies, claim first, under its own folder', async () => {
    const store = memoryStore();
    const { client, starts } = fakeTemporal({
      start: () => Promise.resolve(),
      exists: () => Promise.resolve(false),
    });
    await startWithSelfieBytes(client, request, options, { store, roots: undefined });
    expect(starts).toHaveLength(1);
    expect([...store.objects.keys()].map((key) => key.split('/').pop())).toEqual([
      'pipeline.json',
      'selfie-1.png',
      'selfie-2.png',
    ]);
  });

  test('a start that lost the race to another call with the same request id removes its own copy', async () => {
    const store = memoryStore();
    const { client } = fakeTemporal({
      start: () => Promise.reject(new WorkflowExecutionAlreadyStartedError('started', 'id', 'type')),
      exists: () => Promise.resolve(false),
    });
    const handle = await startWithSelfieBytes(client, request, options, { store, roots: undefined });
    expect(handle.workflowId).toBe('default.avatar-pipeline-order-8812');
    expect(store.objects.size).toBe(0);
  });

  test('a start that failed with no run behind it removes the selfies', async () => {
    const store = memoryStore();
    const { client } = fakeTemporal({
      start: () => Promise.reject(new Error('unavailable')),
      exists: () => Promise.resolve(false),
    });
    await expect(startWithSelfieBytes(client, request, options, { store, roots: undefined })).rejects.toThrow(
      'unavailable',
    );
    expect(store.objects.size).toBe(0);
  });

  test('a start that timed out after the server took it keeps the selfies the run needs', async () => {
    const store = memoryStore();
    let started = false;
    const { client } = fakeTemporal({
      start: () => {
        started = true;
        return Promise.reject(new Error('deadline exceeded'));
      },
      exists: () => Promise.resolve(started),
    });
    await expect(startWithSelfieBytes(client, request, options, { store, roots: undefined })).rejects.toThrow(
      'deadline exceeded',
    );
    expect(store.objects.size).toBe(3);
  });

  test('when Temporal cannot say either, the selfies stay (for the run or the upload janitor)', async () => {
    const store = memoryStore();
    let asked = 0;
    const { client } = fakeTemporal({
      start: () => Promise.reject(new Error('deadline exceeded')),
      // The first describe (before storing) answers; the one after the failed start does not.
      exists: () => (asked++ === 0 ? Promise.resolve(false) : Promise.reject(new Error('unavailable'))),
    });
    await expect(startWithSelfieBytes(client, request, options, { store, roots: undefined })).rejects.toThrow(
      'deadline exceeded',
    );
    expect(store.objects.size).toBe(3);
  });

  test('a bad entry among the selfies is named with the rest of the request, and nothing is stored', async () => {
    const store = memoryStore();
    const { client, starts } = fakeTemporal({
      start: () => Promise.resolve(),
      exists: () => Promise.resolve(false),
    });
    const bad = { ...request, images: [selfie, 42, new Float32Array(4)] as never, styles: [] };
    const refused = await startWithSelfieBytes(client, bad, options, { store, roots: undefined }).catch(
      (err: { issues?: { path: string }[] }) => err,
    );
    expect((refused as { issues: { path: string }[] }).issues.map((issue) => issue.path).sort()).toEqual([
      'images.1',
      'images.2',
      'styles',
    ]);
    expect(starts).toEqual([]);
    expect(store.objects.size).toBe(0);
  });
});

import { PNG } from 'pngjs';
import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { callOk } from './support/provider-http';
import { asDataUri, jpegSelfie, pngSelfie } from './support/selfies';

describe('simulator happy path, contract dialect', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ progression: { mode: 'calls', trainingCalls: 2, generationCalls: 2 } });
  });
  afterAll(() => sim.stop());

  it('trains a model, generates avatars and serves them, in the spec shapes', async () => {
    const styles = await callOk<unknown[]>(sim, 'GET', '/styles/list');
    expect(styles.length).toBeGreaterThanOrEqual(8);
    expect(styles[0]).toEqual(expect.objectContaining({ id: expect.any(Number), name: expect.any(String) }));

    const model = await callOk(sim, 'POST', '/order/create/model', { styles: [3, 7], gender: 2 });
    expect(model).toEqual(
      expect.objectContaining({ parent: 0, status: 'CREATED', styles: [3, 7], gender: 2 }),
    );
    const modelId = model.id as number;
    expect(Number.isInteger(modelId)).toBe(true);

    const first = await callOk(sim, 'POST', `/order/${modelId}/training-images/upload`, {
      gender: '2',
      image: asDataUri(jpegSelfie()),
    });
    expect(first).toEqual({
      id: expect.any(Number),
      order_id: modelId,
      image_url: expect.any(String),
      selected: false,
    });
    const second = await callOk(sim, 'POST', `/order/${modelId}/training-images/upload`, {
      gender: '2',
      image: pngSelfie().toString('base64'),
    });

    const selected = await callOk(
      sim,
      'GET',
      `/order/${modelId}/training-images/${second.id as number}/select`,
    );
    expect(selected).toEqual({ status: 'ok', selected_image_id: second.id });
    const images = await callOk<Array<{ id: number; selected: boolean }>>(
      sim,
      'GET',
      `/order/${modelId}/training-images/list`,
    );
    expect(images.map((image) => [image.id, image.selected])).toEqual([
      [first.id, false],
      [second.id, true],
    ]);

    const run = await callOk(sim, 'GET', `/order/${modelId}/run`);
    expect(run).toEqual({ id: modelId, status: 'STARTED' });
    expect(await callOk(sim, 'GET', `/order/${modelId}/status`)).toEqual(
      expect.objectContaining({
        id: modelId,
        status: 'IN_PROGRESS',
        progress: 50,
        message: expect.any(String),
      }),
    );
    expect(await callOk(sim, 'GET', `/order/${modelId}/status`)).toEqual(
      expect.objectContaining({ status: 'DONE', progress: 100 }),
    );

    const models = await callOk<Array<{ id: number }>>(sim, 'GET', '/model/list');
    expect(models.map((m) => m.id)).toContain(modelId);

    const order = await callOk(sim, 'POST', '/order/create', { styles: [7], gender: 2, parent: modelId });
    expect(order).toEqual(expect.objectContaining({ parent: modelId, status: 'CREATED', styles: [7] }));
    const orderId = order.id as number;
    await callOk(sim, 'GET', `/order/${orderId}/run`);
    await callOk(sim, 'GET', `/order/${orderId}/status`);
    expect((await callOk(sim, 'GET', `/order/${orderId}/status`)).status).toBe('DONE');

    const children = await callOk<Array<{ id: number }>>(sim, 'GET', `/model/${modelId}/order/list`);
    expect(children.map((c) => c.id)).toEqual([orderId]);
    const all = await callOk<Array<{ id: number }>>(sim, 'GET', '/order/list');
    expect(all.map((o) => o.id)).toEqual([modelId, orderId]);

    const page1 = await callOk<Array<{ avatar_id: number; image_url: string }>>(
      sim,
      'GET',
      `/model/${orderId}/avatars/1`,
    );
    const page2 = await callOk<Array<{ avatar_id: number }>>(sim, 'GET', `/model/${orderId}/avatars/2`);
    const page3 = await callOk<unknown[]>(sim, 'GET', `/model/${orderId}/avatars/3`);
    expect(page1).toHaveLength(4);
    expect(page2).toHaveLength(4);
    expect(page3).toEqual([]);
    expect(new Set([...page1, ...page2].map((a) => a.avatar_id)).size).toBe(8);

    // The model's own id lists the avatars of all its finished generation orders.
    const viaModel = await callOk<Array<{ avatar_id: number }>>(sim, 'GET', `/model/${modelId}/avatars/1`);
    expect(viaModel.map((a) => a.avatar_id)).toEqual(page1.map((a) => a.avatar_id));

    const imageResponse = await fetch(page1[0]?.image_url ?? '');
    expect(imageResponse.status).toBe(200);
    expect(imageResponse.headers.get('content-type')).toBe('image/png');
    const png = PNG.sync.read(Buffer.from(await imageResponse.arrayBuffer()));
    expect([png.width, png.height]).toEqual([256, 256]);

    const stats = sim.stats();
    expect(stats.totals).toEqual(
      expect.objectContaining({
        modelsCreated: 1,
        generationOrdersCreated: 1,
        uploads: 2,
        runs: 2,
        selects: 1,
      }),
    );
    expect(stats.orders.find((o) => o.id === modelId)).toEqual(
      expect.objectContaining({
        kind: 'model',
        uploads: 2,
        runs: 1,
        runAttempts: 1,
        statusCalls: 2,
        status: 'DONE',
      }),
    );
  });
});

describe('simulator happy path, variant dialect', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({
      dialect: 'variant',
      basePath: '/rest/api',
      progression: { mode: 'calls', trainingCalls: 2, generationCalls: 1 },
    });
  });
  afterAll(() => sim.stop());

  it('answers in the shapes the real service is known to send', async () => {
    expect(sim.url).toBe(`${sim.origin}/rest/api`);
    const styles = await callOk<{ data: Array<Record<string, unknown>> }>(sim, 'GET', '/styles/list');
    expect(styles.data[0]).toEqual(
      expect.objectContaining({ style_id: expect.stringMatching(/^\d+$/), name: expect.any(String) }),
    );
    expect(styles.data[0]).not.toHaveProperty('id');

    const model = await callOk(sim, 'POST', '/order/create/model', { styles: [5], gender: 1 });
    expect(model).toEqual(
      expect.objectContaining({
        id: expect.stringMatching(/^\d+$/),
        parent: '0',
        status: expect.stringMatching(/^(pending|created)$/),
        message: expect.any(String),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    );
    const modelId = Number(model.id);

    const upload = await callOk(sim, 'POST', `/order/${modelId}/training-images/upload`, {
      gender: '1',
      image: asDataUri(jpegSelfie()),
    });
    expect(upload).toEqual(
      expect.objectContaining({ selfie_id: expect.stringMatching(/^\d+$/), order_id: String(modelId) }),
    );
    expect(upload).not.toHaveProperty('id');
    const images = await callOk<{ data: unknown[] }>(sim, 'GET', `/order/${modelId}/training-images/list`);
    expect(images.data).toHaveLength(1);
    const selected = await callOk(
      sim,
      'GET',
      `/order/${modelId}/training-images/${String(upload.selfie_id)}/select`,
    );
    expect(selected).toEqual(expect.objectContaining({ status: 'ok', selected_image_id: upload.selfie_id }));

    const run = await callOk(sim, 'GET', `/order/${modelId}/run`);
    expect(run).toEqual({ id: String(modelId), status: 'running', message: expect.any(String) });
    const midway = await callOk(sim, 'GET', `/order/${modelId}/status`);
    expect(midway).toEqual({
      id: String(modelId),
      status: expect.stringMatching(/^(processing|in_progress)$/),
      progress: 50,
      message: expect.any(String),
    });
    expect((await callOk(sim, 'GET', `/order/${modelId}/status`)).status).toBe('completed');

    const models = await callOk<{ models: Array<{ id: string }> }>(sim, 'GET', '/model/list');
    expect(models.models.map((m) => m.id)).toEqual([String(modelId)]);

    const order = await callOk(sim, 'POST', '/order/create', { styles: [5, 7], gender: 1, parent: modelId });
    const orderId = Number(order.id);
    await callOk(sim, 'GET', `/order/${orderId}/run`);
    expect((await callOk(sim, 'GET', `/order/${orderId}/status`)).status).toBe('completed');
    const orders = await callOk<{ orders: unknown[] }>(sim, 'GET', '/order/list');
    expect(orders.orders).toHaveLength(2);
    const children = await callOk<{ orders: unknown[] }>(sim, 'GET', `/model/${modelId}/order/list`);
    expect(children.orders).toHaveLength(1);

    const page = await callOk<{ avatars: Array<Record<string, string>> }>(
      sim,
      'GET',
      `/model/${orderId}/avatars/1`,
    );
    expect(page.avatars).toHaveLength(4);
    const avatar = page.avatars[0] ?? {};
    expect(avatar).toEqual({
      avatar_id: expect.stringMatching(/^\d+$/),
      filename: expect.stringContaining('/rest/api/__sim/images/'),
      filename_small: expect.stringContaining('-small.png'),
    });
    const full = PNG.sync.read(Buffer.from(await (await fetch(avatar.filename ?? '')).arrayBuffer()));
    const small = PNG.sync.read(Buffer.from(await (await fetch(avatar.filename_small ?? '')).arrayBuffer()));
    expect(full.width).toBe(256);
    expect(small.width).toBe(128);
  });
});

import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { call, callOk } from './support/provider-http';
import { createModelWithSelfie, trainedModel } from './support/scenario';
import { pngDeclaring } from '../../fixtures/images';
import { asDataUri, jpegSelfie, pngSelfie } from './support/selfies';

describe('simulator validation', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({
      progression: { mode: 'calls', trainingCalls: 1, generationCalls: 1 },
      maxImageBytes: 2048,
    });
  });
  afterAll(() => sim.stop());
  beforeEach(() => sim.reset());

  const createModel = (body: unknown) => call(sim, 'POST', '/order/create/model', { body });
  const upload = (orderId: number, body: unknown) =>
    call(sim, 'POST', `/order/${orderId}/training-images/upload`, { body });

  it.each([
    ['gender missing', { styles: [3] }, /^gender:/],
    ['gender 3', { styles: [3], gender: 3 }, /^gender: must be the integer 1/],
    ['gender as a string', { styles: [3], gender: '1' }, /^gender:/],
    ['styles missing', { gender: 1 }, /^styles:/],
    ['styles empty', { styles: [], gender: 1 }, /^styles:/],
    ['styles not integers', { styles: ['3'], gender: 1 }, /^styles:/],
    ['body an array', [1, 2], /JSON object/],
  ])('refuses a model with %s with 400', async (_case, body, message) => {
    const answer = await createModel(body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ status: 'error', message: expect.stringMatching(message) });
  });

  it('refuses a body that is not JSON with 400', async () => {
    const answer = await call(sim, 'POST', '/order/create/model', { rawBody: '{"styles": [3' });
    expect(answer.status).toBe(400);
  });

  it('refuses unknown style ids with 422', async () => {
    const answer = await createModel({ styles: [3, 999], gender: 1 });
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({ status: 'error', message: 'styles: unknown style id 999' });
    expect(sim.stats().totals.modelsCreated).toBe(0);
  });

  it('answers 404 for unknown orders and 400 for ids that are not integers', async () => {
    expect((await call(sim, 'GET', '/order/4242/status')).status).toBe(404);
    expect((await call(sim, 'GET', '/order/4242/run')).status).toBe(404);
    expect((await call(sim, 'GET', '/model/4242/order/list')).status).toBe(404);
    expect((await call(sim, 'GET', '/order/abc/status')).status).toBe(400);
    expect((await call(sim, 'GET', '/no/such/endpoint')).status).toBe(404);
    expect((await call(sim, 'POST', '/order/list')).status).toBe(405);
  });

  describe('training image upload', () => {
    let modelId: number;
    beforeEach(async () => {
      modelId = (await callOk<{ id: number }>(sim, 'POST', '/order/create/model', { styles: [3], gender: 1 }))
        .id;
    });

    it('accepts JPEG and PNG, with or without a data-URI header', async () => {
      expect((await upload(modelId, { gender: '1', image: asDataUri(jpegSelfie()) })).status).toBe(200);
      expect((await upload(modelId, { gender: '1', image: pngSelfie(8, 8).toString('base64') })).status).toBe(
        200,
      );
      expect(sim.stats().orders[0]?.uploads).toBe(2);
    });

    it('refuses bytes that are not an image with 422', async () => {
      const answer = await upload(modelId, {
        gender: '1',
        image: Buffer.from('GIF89a not allowed').toString('base64'),
      });
      expect(answer.status).toBe(422);
      expect(answer.json).toEqual({ status: 'error', message: 'image: is not a JPEG or PNG image' });
    });

    // Under the pixel limit, but 392 MB of 16-bit samples once decoded: refused by the decoded size.
    it('refuses a 7000 × 7000 16-bit PNG with 422 naming the decoded size, and keeps nothing', async () => {
      const answer = await upload(modelId, {
        gender: '1',
        image: pngDeclaring(7_000, 7_000, { bitDepth: 16, colorType: 6 }).toString('base64'),
      });
      expect(answer.status).toBe(422);
      expect(answer.json).toEqual({
        status: 'error',
        message: expect.stringMatching(
          /^image: declares 7000 × 7000 pixels of 4 × 16-bit samples \(392,000,000 bytes decoded\), more than the limit of 200,000,000 bytes decoded$/,
        ),
      });
      expect(sim.stats().orders[0]?.uploads).toBe(0);
    });

    it('refuses text that is not Base64 with 422', async () => {
      expect((await upload(modelId, { gender: '1', image: 'this is *not* base64!' })).status).toBe(422);
      expect((await upload(modelId, { gender: '1', image: '' })).status).toBe(422);
    });

    it('refuses an image over the size limit with 413', async () => {
      const big = Buffer.concat([jpegSelfie(), Buffer.alloc(4096)]);
      const answer = await upload(modelId, { gender: '1', image: asDataUri(big) });
      expect(answer.status).toBe(413);
      expect(sim.stats().orders[0]?.uploads).toBe(0);
    });

    it('refuses a body larger than any allowed image with 413, without cutting the connection', async () => {
      const answer = await upload(modelId, { gender: '1', image: 'A'.repeat(200_000) });
      expect(answer.status).toBe(413);
    });

    it('refuses a gender that differs from the model with 422, and an integer gender with 400', async () => {
      const mismatch = await upload(modelId, { gender: '2', image: asDataUri(jpegSelfie()) });
      expect(mismatch.status).toBe(422);
      expect(mismatch.json).toEqual({ status: 'error', message: expect.stringMatching(/^gender:/) });
      const integer = await upload(modelId, { gender: 1, image: asDataUri(jpegSelfie()) });
      expect(integer.status).toBe(400);
      expect(integer.json).toEqual({
        status: 'error',
        message: 'gender: must be the string "1" (woman) or "2" (man)',
      });
    });

    it('refuses uploads to a model that has been run with 409', async () => {
      await upload(modelId, { gender: '1', image: asDataUri(jpegSelfie()) });
      await callOk(sim, 'GET', `/order/${modelId}/run`);
      expect((await upload(modelId, { gender: '1', image: asDataUri(jpegSelfie()) })).status).toBe(409);
    });

    it('answers 404 when selecting an image of another order', async () => {
      const other = await createModelWithSelfie(sim);
      const [image] = await callOk<Array<{ id: number }>>(sim, 'GET', `/order/${other}/training-images/list`);
      const answer = await call(sim, 'GET', `/order/${modelId}/training-images/${image?.id ?? 0}/select`);
      expect(answer.status).toBe(404);
    });
  });

  describe('running', () => {
    it('refuses to run a model without training images with 409', async () => {
      const model = await callOk<{ id: number }>(sim, 'POST', '/order/create/model', {
        styles: [3],
        gender: 1,
      });
      const answer = await call(sim, 'GET', `/order/${model.id}/run`);
      expect(answer.status).toBe(409);
      expect(sim.stats().orders[0]).toEqual(
        expect.objectContaining({ runs: 0, runAttempts: 1, status: 'CREATED' }),
      );
    });

    it('refuses a second run with 409 and keeps counting attempts', async () => {
      const modelId = await createModelWithSelfie(sim);
      expect((await call(sim, 'GET', `/order/${modelId}/run`)).status).toBe(200);
      const again = await call(sim, 'GET', `/order/${modelId}/run`);
      expect(again.status).toBe(409);
      expect(again.json).toEqual({ status: 'error', message: expect.stringContaining('already been run') });
      expect(sim.stats().orders[0]).toEqual(expect.objectContaining({ runs: 1, runAttempts: 2 }));
    });
  });

  describe('generation orders', () => {
    it('refuses a parent that is not trained yet with 409', async () => {
      const modelId = await createModelWithSelfie(sim);
      const answer = await call(sim, 'POST', '/order/create', {
        body: { styles: [3], gender: 1, parent: modelId },
      });
      expect(answer.status).toBe(409);
      expect(answer.json).toEqual({ status: 'error', message: expect.stringContaining('not trained') });
    });

    it('refuses an unknown parent with 404 and a generation order as parent with 409', async () => {
      expect(
        (await call(sim, 'POST', '/order/create', { body: { styles: [3], gender: 1, parent: 9999 } })).status,
      ).toBe(404);
      const modelId = await trainedModel(sim);
      const child = await callOk<{ id: number }>(sim, 'POST', '/order/create', {
        styles: [3],
        gender: 1,
        parent: modelId,
      });
      const grandchild = await call(sim, 'POST', '/order/create', {
        body: { styles: [3], gender: 1, parent: child.id },
      });
      expect(grandchild.status).toBe(409);
    });

    it('refuses a missing parent with 400 and a gender other than the model with 422', async () => {
      const modelId = await trainedModel(sim);
      expect((await call(sim, 'POST', '/order/create', { body: { styles: [3], gender: 1 } })).status).toBe(
        400,
      );
      expect(
        (await call(sim, 'POST', '/order/create', { body: { styles: [3], gender: 2, parent: modelId } }))
          .status,
      ).toBe(422);
    });

    it('refuses avatars of an order that is not DONE with 409', async () => {
      const modelId = await trainedModel(sim);
      const order = await callOk<{ id: number }>(sim, 'POST', '/order/create', {
        styles: [3],
        gender: 1,
        parent: modelId,
      });
      expect((await call(sim, 'GET', `/model/${order.id}/avatars/1`)).status).toBe(409);
    });
  });
});

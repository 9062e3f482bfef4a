import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { collectAvatars } from '../../../src/avatar-pages/collect-avatars';
import {
  ProviderAuthError,
  ProviderBadRequestError,
  ProviderInvalidResponseError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
} from '@avatar-pipeline/client/provider/errors';
import type { Order } from '@avatar-pipeline/client/provider/schemas';
import { hasStarted, isTerminalStatus, KNOWN_STATUSES } from '@avatar-pipeline/client/provider/status';
import { toUploadImage } from '@avatar-pipeline/client/provider/upload-image';
import {
  DEFAULT_STYLES,
  startSimulator,
  type RunningSimulator,
  type SimulatorOptions,
} from '../../../src/simulator';
import { tinyJpeg, tinyPng } from '../../fixtures/images';
import { providerFailure } from '../../helpers/provider-failure';

const BASE_PATH = '/rest/api';
const AVATARS_PER_ORDER = 6;
const PAGE_SIZE = 4;

/** The knobs every test starts from; a test that turns one restores them in afterEach. */
const baseline: SimulatorOptions = {
  basePath: BASE_PATH,
  progression: { mode: 'calls', trainingCalls: 3, generationCalls: 2 },
  avatarsPerOrder: AVATARS_PER_ORDER,
  pageSize: PAGE_SIZE,
  firstPage: 1,
  pageBeforeFirst: 'empty',
  fail5xxRate: 0,
  htmlErrorShare: 0.3,
  emptyErrorShare: 0.1,
  loseResponseRate: 0,
  malformedJsonRate: 0,
  slowRate: 0,
  rateLimit: null,
  faultEndpoints: null,
};

describe.each(['contract', 'variant'] as const)(
  'ProviderClient against the simulator, %s dialect',
  (dialect) => {
    let sim: RunningSimulator;
    let client: ProviderClient;

    beforeAll(async () => {
      sim = await startSimulator({ ...baseline, dialect });
      client = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 5_000 });
    });
    afterAll(() => sim.stop());
    beforeEach(() => {
      sim.setOptions(baseline);
      sim.reset();
    });

    const selfie = () => toUploadImage(tinyPng(16, 16));

    /** Polls until DONE or ERROR; returns the statuses seen. */
    async function pollToEnd(orderId: number, limit = 20) {
      const seen: { status: string; progress?: number }[] = [];
      for (let i = 0; i < limit; i++) {
        const answer = await client.getOrderStatus(orderId);
        expect(answer.id).toBe(orderId);
        seen.push({ status: answer.status, progress: answer.progress });
        if (isTerminalStatus(answer.status)) return seen;
      }
      throw new Error(`order ${orderId} did not finish within ${limit} status calls`);
    }

    async function trainedModel(): Promise<Order> {
      const model = await client.createModel({ styles: [3, 5], gender: 2 });
      const image = await client.uploadTrainingImage(model.id, { gender: 2, image: selfie() });
      await client.selectTrainingImage(model.id, image.id);
      await client.runOrder(model.id);
      await pollToEnd(model.id);
      return model;
    }

    async function finishedGeneration(model: Order): Promise<Order> {
      const order = await client.createOrder({ styles: [3, 5], gender: 2, parent: model.id });
      await client.runOrder(order.id);
      await pollToEnd(order.id);
      return order;
    }

    it('is reached below the base path', () => {
      expect(sim.url).toBe(`${sim.origin}${BASE_PATH}`);
    });

    it(`speaks the ${dialect} shapes on the wire, which the client reads alike`, async () => {
      await client.createModel({ styles: [3], gender: 1 });
      const raw: unknown = await fetch(`${sim.url}/model/list`, {
        headers: { Authorization: 'Bearer sim-key' },
      }).then((r) => r.json());
      if (dialect === 'contract') {
        expect(raw).toEqual([expect.objectContaining({ id: expect.any(Number), status: 'CREATED' })]);
      } else {
        expect(raw).toEqual({ models: [expect.objectContaining({ id: expect.any(String) })] });
        expect((raw as { models: { status: string }[] }).models[0]?.status).toMatch(/^[a-z_]+$/);
      }
      expect(await client.listModels()).toEqual([expect.objectContaining({ parent: 0, status: 'CREATED' })]);
    });

    it('lists the styles with numeric ids and names', async () => {
      const styles = await client.listStyles();
      expect(styles.map((s) => s.id)).toEqual(DEFAULT_STYLES.map((s) => s.id));
      for (const style of styles) {
        expect(typeof style.id).toBe('number');
        expect(typeof style.name).toBe('string');
      }
    });

    it('creates a model in the canonical order shape', async () => {
      const model = await client.createModel({ styles: [3, 5], gender: 1 });
      expect(model).toMatchObject({ parent: 0, gender: 1, styles: [3, 5], status: 'CREATED' });
      expect(Number.isInteger(model.id)).toBe(true);
    });

    it('lists models, all orders and the orders under a model', async () => {
      const model = await trainedModel();
      const order = await client.createOrder({ styles: [7], gender: 2, parent: model.id });
      expect(order).toMatchObject({ parent: model.id, gender: 2, styles: [7], status: 'CREATED' });

      const models = await client.listModels();
      expect(models.map((m) => [m.id, m.parent, m.status])).toEqual([[model.id, 0, 'DONE']]);
      const all = await client.listOrders();
      expect(all.map((o) => o.id).sort((a, b) => a - b)).toEqual([model.id, order.id].sort((a, b) => a - b));
      const children = await client.listModelOrders(model.id);
      expect(children.map((o) => [o.id, o.parent, o.status])).toEqual([[order.id, model.id, 'CREATED']]);
    });

    it('uploads, lists and selects training images', async () => {
      const model = await client.createModel({ styles: [3], gender: 1 });
      const first = await client.uploadTrainingImage(model.id, { gender: 1, image: selfie() });
      const second = await client.uploadTrainingImage(model.id, {
        gender: 1,
        image: toUploadImage(tinyJpeg(16, 16)),
      });
      expect(first).toMatchObject({ order_id: model.id, selected: false });
      expect(typeof first.id).toBe('number');
      expect(first.image_url).toMatch(/^http:\/\//);
      expect(second.id).not.toBe(first.id);

      const selection = await client.selectTrainingImage(model.id, second.id);
      expect(selection).toMatchObject({ status: 'ok', selected_image_id: second.id });

      const images = await client.listTrainingImages(model.id);
      expect(images.map((i) => [i.id, i.order_id, i.selected])).toEqual([
        [first.id, model.id, false],
        [second.id, model.id, true],
      ]);
    });

    it('runs a model and reports canonical statuses with progress until DONE', async () => {
      const model = await client.createModel({ styles: [3], gender: 1 });
      await client.uploadTrainingImage(model.id, { gender: 1, image: selfie() });
      const run = await client.runOrder(model.id);
      expect(run.id).toBe(model.id);
      expect(hasStarted(run.status)).toBe(true);
      expect(isTerminalStatus(run.status)).toBe(false);

      const seen = await pollToEnd(model.id);
      // Calls mode: the third status call finishes the training.
      expect(seen).toHaveLength(3);
      expect(seen.at(-1)).toEqual({ status: 'DONE', progress: 100 });
      for (const { status, progress } of seen) {
        expect(KNOWN_STATUSES).toContain(status);
        expect(progress).toBeGreaterThanOrEqual(0);
        expect(progress).toBeLessThanOrEqual(100);
      }
      const progress = seen.map((s) => s.progress ?? 0);
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    });

    it('carries the provider message of a refused run', async () => {
      const model = await client.createModel({ styles: [3], gender: 1 });
      const err = await providerFailure(client.runOrder(model.id));
      expect(err).toBeInstanceOf(ProviderBadRequestError);
      expect(err.httpStatus).toBe(409);
      expect(err.providerMessage).toMatch(/training image/);
    });

    it('runs the whole flow to avatars: train, generate, page through them', async () => {
      const model = await trainedModel();
      const order = await finishedGeneration(model);

      const page1 = await client.listAvatarPage(order.id, 1);
      const page2 = await client.listAvatarPage(order.id, 2);
      const page3 = await client.listAvatarPage(order.id, 3);
      expect(page1).toHaveLength(PAGE_SIZE);
      expect(page2).toHaveLength(AVATARS_PER_ORDER - PAGE_SIZE);
      expect(page3).toEqual([]);
      for (const avatar of [...page1, ...page2]) {
        expect(Number.isInteger(avatar.avatar_id)).toBe(true);
        expect(avatar.image_url).toMatch(/^http:\/\/.+/);
      }

      const collected = await collectAvatars(client, order.id);
      expect(collected.firstPage).toBe(1);
      expect(collected.avatars.map((a) => a.avatar_id)).toEqual([...page1, ...page2].map((a) => a.avatar_id));
      expect(new Set(collected.avatars.map((a) => a.avatar_id)).size).toBe(AVATARS_PER_ORDER);
    });

    it('collects every avatar from a provider whose pages start at 0', async () => {
      sim.setOptions({ firstPage: 0 });
      const order = await finishedGeneration(await trainedModel());
      expect(await client.listAvatarPage(order.id, 0)).toHaveLength(PAGE_SIZE);
      const collected = await collectAvatars(client, order.id);
      expect(collected.firstPage).toBe(0);
      expect(collected.avatars).toHaveLength(AVATARS_PER_ORDER);
    });

    it('collects every avatar when page 0 answers 404 before a first page of 1', async () => {
      sim.setOptions({ firstPage: 1, pageBeforeFirst: 'error' });
      const order = await finishedGeneration(await trainedModel());
      expect(await providerFailure(client.listAvatarPage(order.id, 0))).toBeInstanceOf(
        ProviderBadRequestError,
      );
      const collected = await collectAvatars(client, order.id);
      expect(collected.firstPage).toBe(1);
      expect(collected.avatars).toHaveLength(AVATARS_PER_ORDER);
    });

    it('refuses a wrong API key as an auth error', async () => {
      const stranger = new ProviderClient({ baseUrl: sim.url, apiKey: 'not-the-key', timeoutMs: 5_000 });
      const err = await providerFailure(stranger.listStyles());
      expect(err).toBeInstanceOf(ProviderAuthError);
      expect(err.httpStatus).toBe(401);
      expect(err.providerMessage).toBe('invalid API key');
    });

    it('answers 404 to a client that dropped the base path', async () => {
      const lost = new ProviderClient({ baseUrl: sim.origin, apiKey: 'sim-key', timeoutMs: 5_000 });
      const err = await providerFailure(lost.listStyles());
      expect(err).toBeInstanceOf(ProviderBadRequestError);
      expect(err.httpStatus).toBe(404);
    });

    it('surfaces the rate limit as rate-limited with Retry-After', async () => {
      sim.setOptions({ rateLimit: { requestsPerSecond: 0.01, burst: 1, retryAfterSeconds: 7 } });
      await client.listStyles();
      const err = await providerFailure(client.listStyles());
      expect(err).toBeInstanceOf(ProviderRateLimitedError);
      expect((err as ProviderRateLimitedError).retryAfterMs).toBe(7_000);
      expect(sim.stats().rateLimited).toBe(1);
    });

    it('surfaces a gateway HTML error page as unavailable, titled by the page', async () => {
      sim.setOptions({ fail5xxRate: 1, htmlErrorShare: 1, emptyErrorShare: 0 });
      const err = await providerFailure(client.listOrders());
      expect(err).toBeInstanceOf(ProviderUnavailableError);
      expect([500, 502, 503]).toContain(err.httpStatus);
      expect(err.providerMessage).toMatch(new RegExp(`^${err.httpStatus} \\w`));
      expect(err.message).not.toContain('<');
      expect(sim.stats().faults.serverErrors).toBe(1);
    });

    it('surfaces an empty 5xx body as unavailable', async () => {
      sim.setOptions({ fail5xxRate: 1, htmlErrorShare: 0, emptyErrorShare: 1 });
      const err = await providerFailure(client.listOrders());
      expect(err).toBeInstanceOf(ProviderUnavailableError);
      expect(err.providerMessage).toBeUndefined();
    });

    it('does not perform a request answered 5xx', async () => {
      sim.setOptions({ fail5xxRate: 1, faultEndpoints: ['createModel'] });
      await providerFailure(client.createModel({ styles: [3], gender: 1 }));
      expect(sim.stats().totals.modelsCreated).toBe(0);
    });

    it('surfaces a truncated JSON body as an invalid response', async () => {
      sim.setOptions({ malformedJsonRate: 1, faultEndpoints: ['listStyles'] });
      const err = await providerFailure(client.listStyles());
      expect(err).toBeInstanceOf(ProviderInvalidResponseError);
      expect(sim.stats().faults.malformedJson).toBe(1);
    });

    it('surfaces a lost create response as unavailable while the model was created', async () => {
      sim.setOptions({ loseResponseRate: 1, faultEndpoints: ['createModel'] });
      const err = await providerFailure(client.createModel({ styles: [3, 5], gender: 1 }));
      expect(err).toBeInstanceOf(ProviderUnavailableError);
      expect(err.httpStatus).toBeUndefined();
      const stats = sim.stats();
      expect(stats.faults.lostResponses).toBe(1);
      expect(stats.totals.modelsCreated).toBe(1);
      // The write is committed: a reconciling client finds it in the model list.
      expect((await client.listModels()).map((m) => [m.styles, m.status])).toEqual([[[3, 5], 'CREATED']]);
    });

    it('surfaces a lost upload response as unavailable while the image was stored', async () => {
      const model = await client.createModel({ styles: [3], gender: 1 });
      sim.setOptions({ loseResponseRate: 1, faultEndpoints: ['uploadTrainingImage'] });
      await expect(
        client.uploadTrainingImage(model.id, { gender: 1, image: selfie() }),
      ).rejects.toBeInstanceOf(ProviderUnavailableError);
      expect(sim.stats().totals.uploads).toBe(1);
      expect(await client.listTrainingImages(model.id)).toHaveLength(1);
    });

    it('surfaces a lost run response as unavailable while the run was accepted', async () => {
      const model = await client.createModel({ styles: [3], gender: 1 });
      await client.uploadTrainingImage(model.id, { gender: 1, image: selfie() });
      sim.setOptions({ loseResponseRate: 1, faultEndpoints: ['runOrder'] });
      await expect(client.runOrder(model.id)).rejects.toBeInstanceOf(ProviderUnavailableError);
      expect(sim.stats().orders.find((o) => o.id === model.id)).toMatchObject({ runs: 1, runAttempts: 1 });
      expect(hasStarted((await client.getOrderStatus(model.id)).status)).toBe(true);
    });

    it('times out a slow answer as unavailable', async () => {
      sim.setOptions({ slowRate: 1, slowMs: 2_000, faultEndpoints: ['listStyles'] });
      const err = await providerFailure(client.listStyles({ timeoutMs: 100 }));
      expect(err).toBeInstanceOf(ProviderUnavailableError);
      expect(err.message).toContain('no answer within 100 ms');
      sim.setOptions({ slowRate: 0 });
    });
  },
);

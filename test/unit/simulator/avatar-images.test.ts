import { encode as encodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from '../../../src/config/package-root';
import { startSimulator, type RunningSimulator } from '../../../src/simulator';
import { call, callOk } from './support/provider-http';
import { pollUntilFinished } from './support/scenario';
import { asDataUri } from './support/selfies';

function solidJpeg(rgb: [number, number, number], width = 48, height = 32): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set([...rgb, 255], i);
  return encodeJpeg({ width, height, data }, 90).data;
}

const RED = solidJpeg([220, 30, 30]);
const BLUE = solidJpeg([30, 30, 220]);

describe('simulator avatar images', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({
      progression: { mode: 'calls', trainingCalls: 1, generationCalls: 1 },
      avatarSize: 64,
    });
  });
  afterAll(() => sim.stop());

  async function modelWith(selfies: Buffer[], select?: number): Promise<number> {
    const model = await callOk<{ id: number }>(sim, 'POST', '/order/create/model', {
      styles: [3],
      gender: 1,
    });
    const ids: number[] = [];
    for (const selfie of selfies) {
      const image = await callOk<{ id: number }>(sim, 'POST', `/order/${model.id}/training-images/upload`, {
        gender: '1',
        image: selfie.toString('base64'),
      });
      ids.push(image.id);
    }
    if (select !== undefined)
      await callOk(sim, 'GET', `/order/${model.id}/training-images/${ids[select] ?? 0}/select`);
    await callOk(sim, 'GET', `/order/${model.id}/run`);
    await pollUntilFinished(sim, model.id);
    return model.id;
  }

  async function firstAvatar(modelId: number, style: number): Promise<{ url: string; png: Buffer }> {
    const order = await callOk<{ id: number }>(sim, 'POST', '/order/create', {
      styles: [style],
      gender: 1,
      parent: modelId,
    });
    await callOk(sim, 'GET', `/order/${order.id}/run`);
    await pollUntilFinished(sim, order.id);
    const [avatar] = await callOk<Array<{ image_url: string }>>(sim, 'GET', `/model/${order.id}/avatars/1`);
    const url = avatar?.image_url ?? '';
    const res = await fetch(url); // no Authorization: image URLs are public, like a CDN's
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    return { url, png: Buffer.from(await res.arrayBuffer()) };
  }

  it('draws avatars from the selected selfie (decoded from JPEG), not the first one', async () => {
    const redThenBlueSelected = await modelWith([RED, BLUE], 1);
    const blueOnly = await modelWith([BLUE]);
    const redOnly = await modelWith([RED]);
    const a = await firstAvatar(redThenBlueSelected, 3);
    const b = await firstAvatar(blueOnly, 3);
    const c = await firstAvatar(redOnly, 3);
    // Same selfie, style and position give the same picture, although the models differ.
    expect(a.png.equals(b.png)).toBe(true);
    expect(a.png.equals(c.png)).toBe(false);
    const decoded = PNG.sync.read(a.png);
    expect([decoded.width, decoded.height]).toEqual([64, 64]);
    // Watercolor of a blue selfie stays bluish.
    const centre = (32 * 64 + 32) * 4;
    expect(decoded.data[centre + 2] ?? 0).toBeGreaterThan(decoded.data[centre] ?? 0);
  });

  it('gives styles visibly different treatments', async () => {
    const modelId = await modelWith([RED]);
    const watercolor = await firstAvatar(modelId, 3);
    const noir = await firstAvatar(modelId, 7);
    expect(watercolor.png.equals(noir.png)).toBe(false);
    const grey = PNG.sync.read(noir.png);
    for (let i = 0; i < grey.data.length; i += 4) {
      expect(grey.data[i]).toBe(grey.data[i + 1]);
      expect(grey.data[i + 1]).toBe(grey.data[i + 2]);
    }
  });

  it('falls back to a generated pattern when the selfie only looks like an image', async () => {
    const fakePng = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(64, 7),
    ]);
    const modelId = await modelWith([fakePng]);
    const avatar = await firstAvatar(modelId, 5);
    const decoded = PNG.sync.read(avatar.png);
    expect(decoded.width).toBe(64);
  });

  it('serves uploaded selfies and style previews, and 404 for avatars that do not exist', async () => {
    const model = await callOk<{ id: number }>(sim, 'POST', '/order/create/model', {
      styles: [3],
      gender: 1,
    });
    const image = await callOk<{ image_url: string }>(
      sim,
      'POST',
      `/order/${model.id}/training-images/upload`,
      {
        gender: '1',
        image: asDataUri(RED),
      },
    );
    const selfie = await fetch(image.image_url);
    expect(selfie.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await selfie.arrayBuffer()).equals(RED)).toBe(true);

    const styles = await callOk<Array<{ preview: string }>>(sim, 'GET', '/styles/list');
    const preview = await fetch(styles[0]?.preview ?? '');
    expect(PNG.sync.read(Buffer.from(await preview.arrayBuffer())).width).toBe(64);

    expect((await fetch(`${sim.url}/__sim/images/${model.id}/1.png`)).status).toBe(404);
    expect((await call(sim, 'GET', '/__sim/images/999999/1.png', { apiKey: null })).status).toBe(404);
  });

  it('answers 410 (or 404) for the avatars of orders it was told to forget, and only those', async () => {
    const modelId = await modelWith([RED]);
    const kept = await firstAvatar(modelId, 3);
    const forgotten = await firstAvatar(modelId, 5);
    const forgottenOrder = Number(/\/images\/(\d+)\//.exec(forgotten.url)?.[1]);
    sim.setOptions({ forgottenImageOrders: [forgottenOrder] });
    try {
      expect((await fetch(forgotten.url)).status).toBe(410);
      expect((await fetch(kept.url)).status).toBe(200);
      // A model id forgets the images of every order run on that model.
      sim.setOptions({ forgottenImageOrders: [modelId], forgottenImageStatus: 404 });
      expect((await fetch(kept.url)).status).toBe(404);
      expect((await fetch(forgotten.url)).status).toBe(404);
    } finally {
      sim.setOptions({ forgottenImageOrders: [], forgottenImageStatus: 410 });
    }
    expect((await fetch(forgotten.url)).status).toBe(200);
  });

  it('draws the wrong avatars it was told to in the first orders of a style, then the person again', async () => {
    const modelId = await modelWith([RED]);
    const person = await firstAvatar(modelId, 3);
    sim.setOptions({
      wrongAvatars: { '3': { shows: 'another-person', orders: 1 }, '5': { shows: 'unsafe', orders: 2 } },
    });
    try {
      // Style 3's first order under this model was made before: its next one shows the person.
      expect((await firstAvatar(modelId, 3)).png.equals(person.png)).toBe(true);
      const otherModel = await modelWith([RED]);
      const other = await firstAvatar(otherModel, 3);
      expect(other.png.equals(person.png)).toBe(false);
      expect((await firstAvatar(otherModel, 3)).png.equals(person.png)).toBe(true);
      const unsafe = readFileSync(join(findPackageRoot(), 'samples', 'avatars', 'flagged-unsafe.png'));
      expect((await firstAvatar(otherModel, 5)).png.equals(unsafe)).toBe(true);
      expect((await firstAvatar(otherModel, 5)).png.equals(unsafe)).toBe(true);
      expect((await firstAvatar(otherModel, 5)).png.equals(unsafe)).toBe(false);
    } finally {
      sim.setOptions({ wrongAvatars: {} });
    }
  });

  it('refuses a wrong-avatar rule that names no style or shows nothing it knows', () => {
    expect(() => sim.setOptions({ wrongAvatars: { red: { shows: 'unsafe', orders: 1 } } })).toThrow(
      'keys are style ids',
    );
    expect(() =>
      sim.setOptions({ wrongAvatars: { '3': { shows: 'a-cat' as 'unsafe', orders: 1 } } }),
    ).toThrow(/shows/);
  });
});

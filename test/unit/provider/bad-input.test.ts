import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { CreateModelRequest, Gender } from '@avatar-pipeline/client/provider/request-schemas';
import {
  toUploadImage,
  uploadImageFromBase64,
  uploadImageFromFile,
} from '@avatar-pipeline/client/provider/upload-image';
import { forbiddenFetch, type ForbiddenFetch } from '../../fixtures/fetch-stub';
import { tinyJpeg, tinyPng } from '../../fixtures/images';
import { InputError } from '@avatar-pipeline/client/errors';

let fetchStub: ForbiddenFetch;
let client: ProviderClient;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bad-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fetchStub = forbiddenFetch();
  client = new ProviderClient({
    baseUrl: 'http://provider.invalid/rest/api',
    apiKey: 'k',
    timeoutMs: 1000,
    fetch: fetchStub,
  });
});
afterEach(() => {
  // Whatever a test did, nothing may have reached the network.
  expect(fetchStub.calls).toEqual([]);
});

/** Runs a client call and returns the InputError it was refused with; a synchronous throw is a defect. */
async function refusal(call: () => Promise<unknown>): Promise<InputError> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (err) {
    throw new Error(`the call threw synchronously instead of rejecting: ${String(err)}`, { cause: err });
  }
  const err: unknown = await promise.then(
    () => new Error('the call was expected to be refused, but succeeded'),
    (e: unknown) => e,
  );
  if (!(err instanceof InputError)) throw err;
  return err;
}

/** The way callers upload a selfie file: build the body field, then send it. */
async function uploadFile(path: string, maxBytes?: number) {
  const image = await uploadImageFromFile(path, { maxBytes });
  return client.uploadTrainingImage(12, { gender: 1, image });
}

const model = (overrides: Record<string, unknown>) =>
  ({ styles: [1, 2], gender: 1, ...overrides }) as unknown as CreateModelRequest;

describe('order bodies are checked before any request', () => {
  it.each([
    ['gender 0', { gender: 0 }, 'request.gender', /1 \(woman\) or 2 \(man\)/],
    ['gender 3', { gender: 3 }, 'request.gender', /1 \(woman\) or 2 \(man\)/],
    ['gender "x"', { gender: 'x' }, 'request.gender', /1 \(woman\) or 2 \(man\)/],
    ['gender "1" (a string in an order body)', { gender: '1' }, 'request.gender', /1 \(woman\) or 2 \(man\)/],
    ['no styles', { styles: [] }, 'request.styles', /at least one style/],
    ['styles not an array', { styles: 7 }, 'request.styles', /array of style ids/],
    ['a non-integer style', { styles: [1, 2.5] }, 'request.styles.1', /integer/],
    ['a style that is a string', { styles: ['1'] }, 'request.styles.0', /number/],
    ['a negative style', { styles: [-4] }, 'request.styles.0', /positive/],
    ['a repeated style', { styles: [3, 5, 3] }, 'request.styles', /repeat/],
  ])('createModel refuses %s, naming %s', async (_name, overrides, field, reason) => {
    const err = await refusal(() => client.createModel(model(overrides)));
    expect(err.issues[0]?.path).toBe(field);
    expect(err.issues[0]?.message).toMatch(reason);
    expect(err.message).toContain(field);
  });

  it('createModel refuses a field the provider does not know', async () => {
    const err = await refusal(() => client.createModel(model({ parent: 0 })));
    expect(err.issues[0]?.path).toBe('request');
    expect(err.message).toMatch(/parent/);
  });

  it.each([
    ['a missing parent', { styles: [1], gender: 2 }, 'request.parent'],
    ['parent 0 (a generation order needs a model)', { styles: [1], gender: 2, parent: 0 }, 'request.parent'],
    ['a negative parent', { styles: [1], gender: 2, parent: -5 }, 'request.parent'],
    ['a repeated style', { styles: [1, 1], gender: 2, parent: 8 }, 'request.styles'],
  ])('createOrder refuses %s', async (_name, request, field) => {
    const err = await refusal(() => client.createOrder(request as never));
    expect(err.issues[0]?.path).toBe(field);
  });
});

describe('ids and page indexes are checked before any request', () => {
  it.each([
    ['a negative order id', () => client.getOrderStatus(-1), 'orderId'],
    ['order id 0', () => client.runOrder(0), 'orderId'],
    ['a fractional order id', () => client.listTrainingImages(1.5), 'orderId'],
    ['NaN as order id', () => client.getOrderStatus(Number.NaN), 'orderId'],
    ['a string order id', () => client.getOrderStatus('12' as never), 'orderId'],
    ['a negative model id', () => client.listModelOrders(-2), 'modelId'],
    ['a negative selfie id', () => client.selectTrainingImage(12, -9), 'selfieId'],
    ['a negative page', () => client.listAvatarPage(12, -1), 'page'],
    ['a fractional page', () => client.listAvatarPage(12, 0.5), 'page'],
  ])('refuses %s', async (_name, call, field) => {
    const err = await refusal(call);
    expect(err.issues[0]?.path).toBe(field);
  });
});

describe('uploads are checked before any request', () => {
  const image = toUploadImage(tinyPng());

  it.each([
    ['gender "1" as a string', { gender: '1', image }, 'gender'],
    ['gender 3', { gender: 3, image }, 'gender'],
    ['an empty image', { gender: 1, image: '' }, 'image'],
    ['no image at all', { gender: 2 }, 'image'],
  ])('uploadTrainingImage refuses %s', async (_name, upload, field) => {
    const err = await refusal(() =>
      client.uploadTrainingImage(12, upload as { gender: Gender; image: string }),
    );
    expect(err.issues[0]?.path).toBe(field);
  });

  it('refuses a file that does not exist, naming the file', async () => {
    const path = join(dir, 'missing.jpg');
    const err = await refusal(() => uploadFile(path));
    expect(err.issues[0]?.path).toBe(path);
    expect(err.issues[0]?.message).toBe('file does not exist');
  });

  it('refuses a text file named .jpg by its content', async () => {
    const path = join(dir, 'notes.jpg');
    await writeFile(path, 'these are not the pixels you are looking for\n');
    const err = await refusal(() => uploadFile(path));
    expect(err.issues[0]?.path).toBe(path);
    expect(err.issues[0]?.message).toBe('is not a JPEG or PNG image');
  });

  it('refuses an empty file', async () => {
    const path = join(dir, 'empty.png');
    await writeFile(path, Buffer.alloc(0));
    const err = await refusal(() => uploadFile(path));
    expect(err.issues[0]?.message).toBe('is empty');
  });

  it('refuses a directory given as a file', async () => {
    const path = join(dir, 'a-folder.jpg');
    await mkdir(path);
    const err = await refusal(() => uploadFile(path));
    expect(err.issues[0]?.path).toBe(path);
    expect(err.issues[0]?.message).toBe('is a directory');
  });

  it('refuses an image larger than the limit, saying both sizes', async () => {
    const path = join(dir, 'big.png');
    const png = tinyPng(64, 64);
    await writeFile(path, png);
    const err = await refusal(() => uploadFile(path, 100));
    expect(err.issues[0]?.message).toBe(`is ${png.length} bytes, more than the limit of 100 bytes`);
  });

  it('accepts a real JPEG and PNG file (the checks are not refusing everything)', async () => {
    const jpeg = join(dir, 'ok.jpg');
    const png = join(dir, 'ok.png');
    await writeFile(jpeg, tinyJpeg());
    await writeFile(png, tinyPng());
    expect(await uploadImageFromFile(jpeg)).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(await uploadImageFromFile(png)).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  });
});

describe('Base64 given by a caller is checked before any request', () => {
  async function uploadBase64(encoded: string, maxBytes?: number) {
    const image = uploadImageFromBase64(encoded, { field: 'images[0]', maxBytes });
    return client.uploadTrainingImage(12, { gender: 2, image });
  }

  it.each([
    ['characters outside Base64', 'iVBORw0K*GgoAAAA'],
    ['a length that is not a multiple of 4', 'iVBORw0KGgoAA'],
    ['padding in the middle', 'iVBO=w0KGgoAAAAA'],
  ])('refuses corrupt Base64: %s', async (_name, encoded) => {
    const err = await refusal(() => uploadBase64(encoded));
    expect(err.issues[0]?.path).toBe('images[0]');
    expect(err.issues[0]?.message).toBe('is not valid Base64');
  });

  it('refuses an empty data URI', async () => {
    const err = await refusal(() => uploadBase64('data:image/png;base64,'));
    expect(err.issues[0]?.message).toBe('is empty');
  });

  it('refuses valid Base64 of something that is not an image', async () => {
    const err = await refusal(() => uploadBase64(Buffer.from('GIF89a not supported').toString('base64')));
    expect(err.issues[0]?.message).toBe('is not a JPEG or PNG image');
  });

  it('refuses an oversize decoded image', async () => {
    const err = await refusal(() => uploadBase64(tinyPng(32, 32).toString('base64'), 64));
    expect(err.issues[0]?.message).toMatch(/more than the limit of 64 bytes/);
  });

  it('accepts a data URI, re-labelling it with the detected format', () => {
    const jpegAsPng = `data:image/png;base64,${tinyJpeg().toString('base64')}`;
    expect(uploadImageFromBase64(jpegAsPng)).toMatch(/^data:image\/jpeg;base64,/);
  });
});

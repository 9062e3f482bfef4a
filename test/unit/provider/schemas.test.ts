import type { z } from 'zod';
import {
  avatarPageSchema,
  avatarSchema,
  orderListSchema,
  orderSchema,
  orderStatusSchema,
  selectResultSchema,
  styleListSchema,
  styleSchema,
  trainingImageListSchema,
  trainingImageSchema,
} from '@avatar-pipeline/client/provider/schemas';

/** The first issue's path as the transport quotes it ("0.id"), or throws when the value parses. */
function failingPath(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  if (result.success) throw new Error(`expected ${JSON.stringify(value)} to be refused`);
  return (result.error.issues[0]?.path ?? []).map(String).join('.');
}

const contractOrder = { id: 12, parent: 0, gender: 1, styles: [3, 4], status: 'CREATED' };

describe('order schema', () => {
  it('accepts the contract shape unchanged', () => {
    expect(orderSchema.parse(contractOrder)).toEqual(contractOrder);
  });

  it('turns numeric-string ids, parent, gender and styles into numbers', () => {
    const parsed = orderSchema.parse({
      id: '12',
      parent: '7',
      gender: '2',
      styles: ['3', 4],
      status: 'DONE',
    });
    expect(parsed).toEqual({ id: 12, parent: 7, gender: 2, styles: [3, 4], status: 'DONE' });
  });

  it('keeps message, created_at and unknown extra fields', () => {
    const parsed = orderSchema.parse({
      ...contractOrder,
      message: 'Model created successfully',
      created_at: '2024-05-01T10:00:00Z',
      thumbnail: 'https://cdn.example/t.png',
      nested: { a: 1 },
    });
    expect(parsed).toMatchObject({
      message: 'Model created successfully',
      created_at: '2024-05-01T10:00:00Z',
      thumbnail: 'https://cdn.example/t.png',
      nested: { a: 1 },
    });
  });

  it.each([
    ['created', 'CREATED'],
    ['pending', 'CREATED'],
    ['started', 'STARTED'],
    ['running', 'IN_PROGRESS'],
    ['in_progress', 'IN_PROGRESS'],
    ['processing', 'IN_PROGRESS'],
    ['completed', 'DONE'],
    ['done', 'DONE'],
    ['failed', 'ERROR'],
    ['error', 'ERROR'],
    ['Completed', 'DONE'],
    [' DONE ', 'DONE'],
  ])('normalizes status %j to %s', (raw, canonical) => {
    expect(orderSchema.parse({ ...contractOrder, status: raw }).status).toBe(canonical);
  });

  it('keeps a status never seen before exactly as it came', () => {
    expect(orderSchema.parse({ ...contractOrder, status: 'awaiting_moderation' }).status).toBe(
      'awaiting_moderation',
    );
    expect(orderStatusSchema.parse({ id: 1, status: 'QUEUED_FOR_GPU' }).status).toBe('QUEUED_FOR_GPU');
  });

  it.each([
    ['a missing id', { status: 'DONE' }, 'id'],
    ['a non-numeric string id', { id: 'abc', status: 'DONE' }, 'id'],
    ['a negative id', { id: -3, status: 'DONE' }, 'id'],
    ['a fractional id', { id: 1.5, status: 'DONE' }, 'id'],
    ['a missing status', { id: 1 }, 'status'],
    ['an empty status', { id: 1, status: '' }, 'status'],
    ['a numeric status', { id: 1, status: 3 }, 'status'],
    ['gender 3', { id: 1, status: 'DONE', gender: 3 }, 'gender'],
    ['a bad style id', { id: 1, status: 'DONE', styles: [1, 'x'] }, 'styles.1'],
  ])('refuses %s, quoting the path', (_name, value, path) => {
    expect(failingPath(orderSchema, value)).toBe(path);
  });
});

describe('order lists', () => {
  const orders = [contractOrder, { ...contractOrder, id: 13, parent: 12 }];

  it('accepts a bare array (the contract)', () => {
    expect(orderListSchema.parse(orders).map((o) => o.id)).toEqual([12, 13]);
  });

  it.each(['orders', 'models', 'data', 'items'])('unwraps {"%s": [...]}', (key) => {
    expect(orderListSchema.parse({ [key]: orders }).map((o) => o.id)).toEqual([12, 13]);
  });

  it('accepts an empty wrapped list', () => {
    expect(orderListSchema.parse({ models: [] })).toEqual([]);
  });

  it('refuses an object without a known list inside, at the root', () => {
    expect(failingPath(orderListSchema, { results: orders })).toBe('');
    expect(orderListSchema.safeParse({ results: orders }).success).toBe(false);
  });

  it('refuses a bad element, quoting its index and field', () => {
    expect(failingPath(orderListSchema, [contractOrder, { ...contractOrder, id: 'x' }])).toBe('1.id');
    expect(failingPath(orderListSchema, { orders: [{ id: 4 }] })).toBe('0.status');
  });
});

describe('status and run answers', () => {
  it('accepts the contract shape', () => {
    expect(orderStatusSchema.parse({ id: 5, status: 'IN_PROGRESS' })).toEqual({
      id: 5,
      status: 'IN_PROGRESS',
    });
  });

  it('carries progress and message, with progress as a number', () => {
    expect(
      orderStatusSchema.parse({ id: '5', status: 'processing', progress: 42, message: 'Training' }),
    ).toEqual({
      id: 5,
      status: 'IN_PROGRESS',
      progress: 42,
      message: 'Training',
    });
    expect(orderStatusSchema.parse({ id: 5, status: 'running', progress: '17' }).progress).toBe(17);
  });

  it('keeps extra fields of the status answer', () => {
    expect(orderStatusSchema.parse({ id: 5, status: 'DONE', eta_seconds: 0 })).toMatchObject({
      eta_seconds: 0,
    });
  });

  it.each([
    ['progress above 100', { id: 5, status: 'DONE', progress: 140 }, 'progress'],
    ['negative progress', { id: 5, status: 'DONE', progress: -1 }, 'progress'],
    ['non-numeric progress', { id: 5, status: 'DONE', progress: 'half' }, 'progress'],
    ['a non-string message', { id: 5, status: 'DONE', message: { text: 'x' } }, 'message'],
  ])('refuses %s, quoting the path', (_name, value, path) => {
    expect(failingPath(orderStatusSchema, value)).toBe(path);
  });
});

describe('training images', () => {
  it('accepts the contract shape', () => {
    const image = { id: 9, order_id: 12, image_url: 'https://x/9.jpg', selected: true };
    expect(trainingImageSchema.parse(image)).toEqual(image);
  });

  it('reads selfie_id as id, and string ids as numbers', () => {
    expect(
      trainingImageSchema.parse({ selfie_id: '9', order_id: '12', image_url: 'u', selected: false }),
    ).toEqual({
      id: 9,
      selfie_id: '9',
      order_id: 12,
      image_url: 'u',
      selected: false,
    });
  });

  it('prefers id over selfie_id when both are present', () => {
    expect(trainingImageSchema.parse({ id: 3, selfie_id: 4 }).id).toBe(3);
  });

  it('treats a missing "selected" as false', () => {
    expect(trainingImageSchema.parse({ id: 9 }).selected).toBe(false);
  });

  it.each(['data', 'images', 'training_images'])('unwraps a list wrapped in "%s"', (key) => {
    expect(trainingImageListSchema.parse({ [key]: [{ selfie_id: 1 }, { id: 2 }] }).map((i) => i.id)).toEqual([
      1, 2,
    ]);
  });

  it('refuses an image without any id, and a non-boolean "selected"', () => {
    expect(failingPath(trainingImageSchema, { order_id: 1 })).toBe('id');
    expect(failingPath(trainingImageListSchema, [{ id: 1, selected: 'yes' }])).toBe('0.selected');
  });

  it('reads the select answer with a string selected_image_id', () => {
    expect(
      selectResultSchema.parse({ status: 'ok', selected_image_id: '9', message: 'Main image selected' }),
    ).toEqual({
      status: 'ok',
      selected_image_id: 9,
      message: 'Main image selected',
    });
    expect(failingPath(selectResultSchema, { selected_image_id: 9 })).toBe('status');
  });
});

describe('avatars', () => {
  it('accepts the contract shape', () => {
    expect(avatarSchema.parse({ avatar_id: 1, image_url: 'https://x/1.png' })).toEqual({
      avatar_id: 1,
      image_url: 'https://x/1.png',
    });
  });

  it('uses filename as image_url when image_url is missing, keeping filename_small', () => {
    expect(
      avatarSchema.parse({ avatar_id: '1', filename: 'https://x/1.png', filename_small: 'https://x/1s.png' }),
    ).toEqual({
      avatar_id: 1,
      image_url: 'https://x/1.png',
      filename: 'https://x/1.png',
      filename_small: 'https://x/1s.png',
    });
  });

  it('keeps image_url when both image_url and filename are present', () => {
    expect(avatarSchema.parse({ avatar_id: 1, image_url: 'a', filename: 'b' }).image_url).toBe('a');
  });

  it('reads a bare "id" as avatar_id', () => {
    expect(avatarSchema.parse({ id: '5', image_url: 'a' }).avatar_id).toBe(5);
  });

  it.each(['avatars', 'data'])('unwraps a page wrapped in "%s"', (key) => {
    const page = avatarPageSchema.parse({
      [key]: [
        { avatar_id: 1, filename: 'a' },
        { avatar_id: 2, image_url: 'b' },
      ],
    });
    expect(page.map((a) => [a.avatar_id, a.image_url])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });

  it('refuses an avatar without any image location, quoting image_url', () => {
    expect(failingPath(avatarPageSchema, [{ avatar_id: 1, image_url: 'a' }, { avatar_id: 2 }])).toBe(
      '1.image_url',
    );
  });

  it('refuses an avatar without an id, quoting avatar_id', () => {
    expect(failingPath(avatarPageSchema, { avatars: [{ image_url: 'a' }] })).toBe('0.avatar_id');
  });
});

describe('styles', () => {
  it('accepts the contract shape and keeps extra fields', () => {
    expect(styleSchema.parse({ id: 3, name: 'Watercolor', preview: 'https://x/3.png' })).toEqual({
      id: 3,
      name: 'Watercolor',
      preview: 'https://x/3.png',
    });
  });

  it('reads style_id as id', () => {
    expect(styleSchema.parse({ style_id: '3', name: 'Watercolor' })).toMatchObject({
      id: 3,
      name: 'Watercolor',
    });
  });

  it.each(['styles', 'data'])('unwraps a list wrapped in "%s"', (key) => {
    expect(styleListSchema.parse({ [key]: [{ style_id: 1, name: 'a' }] })).toMatchObject([
      { id: 1, name: 'a' },
    ]);
  });

  it('refuses a style without a name, quoting the path', () => {
    expect(failingPath(styleListSchema, [{ id: 1, name: 'a' }, { id: 2 }])).toBe('1.name');
  });
});

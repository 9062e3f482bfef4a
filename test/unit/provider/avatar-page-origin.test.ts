import { AvatarPageOrigin, walkAvatarPages } from '../../../src/avatar-pages/avatar-page-origin';
import { AvatarPageStart } from '../../../src/avatar-pages/avatar-page-start';

type PageAnswer = number[] | Error;

/**
 * One provider serving several orders: `pages(order, page)` answers each read (an Error is thrown,
 * as readAvatarPage throws what it does not read as empty). Every read resolves on a later turn,
 * so walks started together really overlap; `asked` records reads in the order they were made.
 */
function provider(pages: (order: number, page: number) => PageAnswer) {
  const asked: [number, number][] = [];
  const reader = (order: number) => async (page: number) => {
    asked.push([order, page]);
    await new Promise((resolve) => setImmediate(resolve));
    const answer = pages(order, page);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { asked, reader };
}

/** Order `order`'s avatars `order*100+1 … order*100+count` in pages of `size` from `first`; pages before `first` answer `before`. */
function paged(
  first: number,
  size: number,
  count: (order: number) => number,
  before: () => PageAnswer = () => [],
) {
  return (order: number, page: number): PageAnswer => {
    if (page < first) return before();
    const from = (page - first) * size;
    const ids = [];
    for (let i = from; i < Math.min(from + size, count(order)); i++) ids.push(order * 100 + i + 1);
    return ids;
  };
}

const range = (order: number, count: number) => Array.from({ length: count }, (_, i) => order * 100 + i + 1);
const pagesOf = (asked: [number, number][], order: number) =>
  asked.filter(([o]) => o === order).map(([, p]) => p);

/** Walks orders 1..n at once with one shared origin. */
async function walkTogether(
  orders: number[],
  reader: (order: number) => (page: number) => Promise<number[]>,
) {
  const origin = new AvatarPageOrigin();
  const walks = await Promise.all(
    orders.map((order) => walkAvatarPages<number>((id) => id, reader(order), { origin })),
  );
  return { origin, walks };
}

describe('walkAvatarPages with a shared AvatarPageOrigin', () => {
  it('reads page 0 once for a 1-based provider: the other walks start at page 1', async () => {
    const { asked, reader } = provider(paged(1, 4, () => 8));
    const { origin, walks } = await walkTogether([1, 2, 3], reader);
    expect(walks.map((w) => w.avatars)).toEqual([range(1, 8), range(2, 8), range(3, 8)]);
    expect(origin.firstPage).toBe(1);
    expect(pagesOf(asked, 1)).toEqual([0, 1, 2, 3]);
    expect(pagesOf(asked, 2)).toEqual([1, 2, 3]);
    expect(pagesOf(asked, 3)).toEqual([1, 2, 3]);
    // The waiting walks start on the probe's empty page 0, beside its read of page 1.
    expect(asked.slice(0, 4)).toEqual([
      [1, 0],
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
  });

  it('treats a refused page 0 like an empty one (readAvatarPage reads a 404 there as empty)', async () => {
    const { asked, reader } = provider(paged(1, 3, () => 5));
    const { walks } = await walkTogether([1, 2], reader);
    expect(walks.map((w) => w.avatars)).toEqual([range(1, 5), range(2, 5)]);
    expect(asked.filter(([, p]) => p === 0)).toEqual([[1, 0]]);
  });

  it('starts every walk at page 0 for a 0-based provider, and stops as before', async () => {
    const { asked, reader } = provider(paged(0, 4, () => 6));
    const { origin, walks } = await walkTogether([1, 2], reader);
    expect(walks.map((w) => w.avatars)).toEqual([range(1, 6), range(2, 6)]);
    expect(origin.firstPage).toBe(0);
    expect(pagesOf(asked, 1)).toEqual([0, 1, 2]);
    expect(pagesOf(asked, 2)).toEqual([0, 1, 2]);
  });

  it('does not learn from an order without avatars: walks that started at page 1 on its word read page 0 too', async () => {
    // 0-based: order 1 has none, so its empty page 0 must not cost orders 2 and 3 their page 0.
    const { asked, reader } = provider(paged(0, 4, (order) => (order === 1 ? 0 : 6)));
    const { origin, walks } = await walkTogether([1, 2, 3], reader);
    expect(walks).toEqual([
      { avatars: [], firstPage: undefined, pagesRead: 2 },
      { avatars: range(2, 6), firstPage: 0, pagesRead: 3 },
      { avatars: range(3, 6), firstPage: 0, pagesRead: 3 },
    ]);
    expect(origin.firstPage).toBeUndefined();
    expect(pagesOf(asked, 1)).toEqual([0, 1]);
    expect(pagesOf(asked, 2)).toEqual([1, 2, 0]);
    expect(pagesOf(asked, 3)).toEqual([1, 2, 0]);
    // A walk that begins afterwards probes page 0 itself.
    const later = await walkAvatarPages<number>((id) => id, reader(4), { origin });
    expect(later.avatars).toEqual(range(4, 6));
    expect(pagesOf(asked, 4)).toEqual([0, 1, 2]);
    expect(origin.firstPage).toBe(0);
  });

  it('on a 1-based provider, an order without avatars behind the probe still leaves the others right', async () => {
    const { asked, reader } = provider(paged(1, 4, (order) => (order === 1 ? 0 : 5)));
    const { walks } = await walkTogether([1, 2], reader);
    expect(walks.map((w) => w.avatars)).toEqual([[], range(2, 5)]);
    // Order 2 started at page 1, and read page 0 (empty) once the probe found nothing.
    expect(pagesOf(asked, 2)).toEqual([1, 2, 3, 0]);
  });

  it('waits for a probe still reading page 0, and starts there when it holds avatars', async () => {
    const { asked, reader } = provider(paged(0, 2, () => 3));
    const { walks } = await walkTogether([1, 2], reader);
    expect(walks.map((w) => w.avatars)).toEqual([range(1, 3), range(2, 3)]);
    expect(asked[0]).toEqual([1, 0]);
    expect(pagesOf(asked, 2)).toEqual([0, 1, 2]);
  });

  it('hands probing on when the probing walk fails on page 0, and the failure stays its own', async () => {
    const outage = new Error('provider unavailable');
    const { asked, reader } = provider((order, page) =>
      order === 1 ? outage : paged(1, 2, () => 3)(order, page),
    );
    const origin = new AvatarPageOrigin();
    const results = await Promise.allSettled(
      [1, 2, 3].map((order) => walkAvatarPages<number>((id) => id, reader(order), { origin })),
    );
    expect(results[0]).toEqual({ status: 'rejected', reason: outage });
    expect(results.slice(1)).toEqual([
      { status: 'fulfilled', value: { avatars: range(2, 3), firstPage: 1, pagesRead: 4 } },
      { status: 'fulfilled', value: { avatars: range(3, 3), firstPage: 1, pagesRead: 3 } },
    ]);
    expect(pagesOf(asked, 3)).toEqual([1, 2, 3]);
  });

  it('keeps the repeat rules for a provider that ignores the page index', async () => {
    const { asked, reader } = provider((order) => range(order, 3));
    const { origin, walks } = await walkTogether([1, 2], reader);
    expect(walks.map((w) => w.avatars)).toEqual([range(1, 3), range(2, 3)]);
    expect(origin.firstPage).toBe(0);
    expect(pagesOf(asked, 1).length).toBeLessThanOrEqual(3);
    expect(pagesOf(asked, 2).length).toBeLessThanOrEqual(3);
  });

  it('starts walks at page 1 and then reads page 0 when the probe fails after an empty page 0', async () => {
    const outage = new Error('provider unavailable');
    const { asked, reader } = provider((order, page) =>
      order === 1 && page === 1 ? outage : paged(1, 2, () => 3)(order, page),
    );
    const origin = new AvatarPageOrigin();
    const results = await Promise.allSettled(
      [1, 2].map((order) => walkAvatarPages<number>((id) => id, reader(order), { origin })),
    );
    expect(results[0]).toEqual({ status: 'rejected', reason: outage });
    expect(results[1]).toEqual({
      status: 'fulfilled',
      value: { avatars: range(2, 3), firstPage: 1, pagesRead: 4 },
    });
    expect(pagesOf(asked, 2)).toEqual([1, 2, 3, 0]);
  });

  it('keeps reaching page 2 of a 1-based provider that answers page 0 as page 1', async () => {
    const clamped = (order: number, page: number) => paged(1, 2, () => 6)(order, Math.max(page, 1));
    const { reader } = provider(clamped);
    const { walks } = await walkTogether([1, 2], reader);
    expect(walks.map((w) => w.avatars)).toEqual([range(1, 6), range(2, 6)]);
  });

  it('lets a later walk start at once where pages start', async () => {
    const { asked, reader } = provider(paged(1, 4, () => 4));
    const origin = new AvatarPageOrigin();
    await walkAvatarPages<number>((id) => id, reader(1), { origin });
    const later = await walkAvatarPages<number>((id) => id, reader(2), { origin });
    expect(later).toEqual({ avatars: range(2, 4), firstPage: 1, pagesRead: 2 });
    expect(pagesOf(asked, 2)).toEqual([1, 2]);
  });

  it('walks from page 0 without an origin', async () => {
    const { asked, reader } = provider(paged(1, 4, () => 4));
    const walk = await walkAvatarPages<number>((id) => id, reader(1));
    expect(walk).toEqual({ avatars: range(1, 4), firstPage: 1, pagesRead: 3 });
    expect(pagesOf(asked, 1)).toEqual([0, 1, 2]);
  });
});

/**
 * One worker's activities (listAvatarPage, listFirstAvatarPage) over `reader`: every read is noted
 * in the worker's AvatarPageStart, and the first read of a probing walk goes where it says.
 */
function worker(reader: (order: number) => (page: number) => Promise<number[]>) {
  const start = new AvatarPageStart();
  const readPage = (order: number) => async (page: number) => {
    const avatars = await reader(order)(page);
    start.noteRead(order, page, avatars.length);
    return avatars;
  };
  const readFirst = (order: number) => async () => {
    const page = start.firstPage;
    return { page, avatars: await readPage(order)(page) };
  };
  /** One run: its own origin, its orders walked at once. */
  const run = (orders: number[]) => {
    const origin = new AvatarPageOrigin();
    return Promise.all(
      orders.map((order) =>
        walkAvatarPages<number>((id) => id, readPage(order), { origin, readFirst: readFirst(order) }),
      ),
    );
  };
  return { start, run };
}

describe('walkAvatarPages with a first read where the worker has seen pages start', () => {
  it('pays for page 0 in the first run only: later runs on a 1-based provider start at page 1', async () => {
    const { asked, reader } = provider(paged(1, 4, () => 6));
    const { start, run } = worker(reader);
    expect(await run([1])).toEqual([{ avatars: range(1, 6), firstPage: 1, pagesRead: 4 }]);
    expect(start.firstPage).toBe(1);
    expect(await run([2, 3])).toEqual([
      { avatars: range(2, 6), firstPage: 1, pagesRead: 3 },
      { avatars: range(3, 6), firstPage: 1, pagesRead: 3 },
    ]);
    expect(pagesOf(asked, 1)).toEqual([0, 1, 2, 3]);
    expect(pagesOf(asked, 2)).toEqual([1, 2, 3]);
    expect(pagesOf(asked, 3)).toEqual([1, 2, 3]);
  });

  it('keeps reading page 0 first on a 0-based provider', async () => {
    const { asked, reader } = provider(paged(0, 4, () => 6));
    const { start, run } = worker(reader);
    await run([1]);
    expect(await run([2])).toEqual([{ avatars: range(2, 6), firstPage: 0, pagesRead: 3 }]);
    expect(start.firstPage).toBe(0);
    expect(pagesOf(asked, 2)).toEqual([0, 1, 2]);
  });

  it('learns nothing from a provider that answers page 0 as page 1, and still reads every avatar', async () => {
    const clamped = (order: number, page: number) => paged(1, 2, () => 6)(order, Math.max(page, 1));
    const { reader } = provider(clamped);
    const { start, run } = worker(reader);
    await run([1]);
    expect((await run([2])).map((w) => w.avatars)).toEqual([range(2, 6)]);
    expect(start.firstPage).toBe(0);
  });

  it('reads page 0 as well when an order shows nothing from page 1 on', async () => {
    // Learnt 1-based from order 1; order 2 has its avatars where the worker did not expect them.
    const { asked, reader } = provider((order, page) =>
      order === 1 ? paged(1, 4, () => 4)(order, page) : paged(0, 4, () => 3)(order, page),
    );
    const { run } = worker(reader);
    await run([1]);
    expect(await run([2])).toEqual([{ avatars: range(2, 3), firstPage: 0, pagesRead: 2 }]);
    expect(pagesOf(asked, 2)).toEqual([1, 0]);
  });

  it("lets the run's other walks start at once once the first read found avatars at page 1", async () => {
    const { asked, reader } = provider(paged(1, 4, () => 4));
    const { run } = worker(reader);
    await run([1]);
    await run([2, 3, 4]);
    for (const order of [2, 3, 4]) expect(pagesOf(asked, order)).toEqual([1, 2]);
  });
});

describe('AvatarPageStart', () => {
  it('learns 1 only from the same order: page 0 empty, then page 1 with avatars', () => {
    const start = new AvatarPageStart();
    start.noteRead(1, 0, 0);
    start.noteRead(2, 1, 4);
    expect(start.firstPage).toBe(0);
    start.noteRead(1, 1, 0);
    expect(start.firstPage).toBe(0);
    start.noteRead(2, 0, 0);
    start.noteRead(2, 1, 4);
    expect(start.firstPage).toBe(1);
  });

  it('never learns 0 from avatars on page 0, and forgets the oldest orders past its bound', () => {
    const start = new AvatarPageStart();
    start.noteRead(1, 0, 5);
    expect(start.firstPage).toBe(0);
    start.noteRead(7, 0, 0);
    for (let order = 100; order < 1_100; order++) start.noteRead(order, 0, 0);
    start.noteRead(7, 1, 3);
    expect(start.firstPage).toBe(0);
    start.noteRead(1_099, 1, 3);
    expect(start.firstPage).toBe(1);
  });
});

import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { collectAvatars } from '../../../src/avatar-pages/collect-avatars';
import { ProviderBadRequestError, ProviderUnavailableError } from '@avatar-pipeline/client/provider/errors';
import type { Avatar } from '@avatar-pipeline/client/provider/schemas';

type PageAnswer = number[] | Error;

/** A provider whose avatar pages are given by `pages(index)`; records the pages asked for. */
function fakeProvider(pages: (page: number) => PageAnswer) {
  const asked: number[] = [];
  const client = {
    listAvatarPage: async (_orderId: number, page: number): Promise<Avatar[]> => {
      asked.push(page);
      const answer = pages(page);
      if (answer instanceof Error) throw answer;
      return answer.map((id) => ({ avatar_id: id, image_url: `https://cdn.example/${id}.png` }));
    },
  };
  return { client: client as unknown as ProviderClient, asked };
}

/** Pages laid out from `first` (0 or 1) on; anything outside answers `outside`. */
function paged(first: number, layout: number[][], outside: (page: number) => PageAnswer = () => []) {
  return (page: number) => layout[page - first] ?? outside(page);
}

const notFound = () =>
  new ProviderBadRequestError('Provider rejected the request', {
    endpoint: '/model/{id}/avatars/{page}',
    method: 'GET',
    httpStatus: 404,
  });

const ids = (avatars: Avatar[]) => avatars.map((a) => a.avatar_id);

describe('collectAvatars', () => {
  it('walks a 0-based provider from page 0 to the first empty page', async () => {
    const { client, asked } = fakeProvider(paged(0, [[1, 2], [3, 4], [5]]));
    const result = await collectAvatars(client, 9);
    expect(ids(result.avatars)).toEqual([1, 2, 3, 4, 5]);
    expect(result.firstPage).toBe(0);
    expect(asked).toEqual([0, 1, 2, 3]);
    expect(result.pagesRead).toBe(4);
  });

  it('moves on to page 1 when page 0 is empty (1-based provider)', async () => {
    const { client, asked } = fakeProvider(paged(1, [[1, 2], [3]]));
    const result = await collectAvatars(client, 9);
    expect(ids(result.avatars)).toEqual([1, 2, 3]);
    expect(result.firstPage).toBe(1);
    expect(asked).toEqual([0, 1, 2, 3]);
  });

  it('treats page 0 answering 404 as "before the first page"', async () => {
    const { client, asked } = fakeProvider(
      paged(
        1,
        [
          [1, 2],
          [3, 4],
        ],
        (page) => (page === 0 ? notFound() : []),
      ),
    );
    const result = await collectAvatars(client, 9);
    expect(ids(result.avatars)).toEqual([1, 2, 3, 4]);
    expect(result.firstPage).toBe(1);
    expect(asked).toEqual([0, 1, 2, 3]);
  });

  it('still reaches page 2 of a 1-based provider that answers page 0 as page 1', async () => {
    const layout = [
      [1, 2],
      [3, 4],
      [5, 6],
    ];
    const { client, asked } = fakeProvider((page) => layout[Math.max(page, 1) - 1] ?? []);
    const result = await collectAvatars(client, 9);
    expect(ids(result.avatars)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(asked).toEqual([0, 1, 2, 3, 4]);
  });

  it('stops when the provider ignores the page index and repeats itself', async () => {
    const { client, asked } = fakeProvider(() => [1, 2, 3]);
    const result = await collectAvatars(client, 9);
    expect(ids(result.avatars)).toEqual([1, 2, 3]);
    expect(asked.length).toBeLessThanOrEqual(3);
  });

  it('stops when a later page repeats the previous page', async () => {
    const { client, asked } = fakeProvider(
      paged(
        1,
        [
          [1, 2],
          [3, 4],
        ],
        (page) => (page > 2 ? [3, 4] : []),
      ),
    );
    const result = await collectAvatars(client, 9);
    expect(ids(result.avatars)).toEqual([1, 2, 3, 4]);
    expect(asked).toEqual([0, 1, 2, 3]);
  });

  it('never reads more than maxPages pages, even if every page is new', async () => {
    const { client, asked } = fakeProvider((page) => [page * 10 + 1, page * 10 + 2]);
    const result = await collectAvatars(client, 9, { maxPages: 5 });
    expect(asked).toEqual([0, 1, 2, 3, 4]);
    expect(result.pagesRead).toBe(5);
    expect(result.avatars).toHaveLength(10);
  });

  it('has a default bound on the walk', async () => {
    const { client, asked } = fakeProvider((page) => [page + 1]);
    await collectAvatars(client, 9);
    expect(asked.length).toBeGreaterThan(10);
    expect(asked.length).toBeLessThanOrEqual(1_000);
  });

  it('returns each avatar once when pages overlap', async () => {
    const { client } = fakeProvider(
      paged(0, [
        [1, 2, 3],
        [3, 4, 5],
        [5, 6],
      ]),
    );
    const result = await collectAvatars(client, 9);
    expect(ids(result.avatars)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('returns nothing for an order without avatars, in either numbering', async () => {
    for (const pages of [() => [], (page: number) => (page === 0 ? notFound() : [])]) {
      const { client, asked } = fakeProvider(pages);
      const result = await collectAvatars(client, 9);
      expect(result).toEqual({ avatars: [], firstPage: undefined, pagesRead: 2 });
      expect(asked).toEqual([0, 1]);
    }
  });

  it('passes the order id and call options to every page request', async () => {
    const seen: unknown[] = [];
    const client = {
      listAvatarPage: async (orderId: number, page: number, call: unknown) => {
        seen.push([orderId, page, call]);
        return [];
      },
    } as unknown as ProviderClient;
    const signal = new AbortController().signal;
    await collectAvatars(client, 77, { signal, timeoutMs: 1234 });
    expect(seen).toEqual([
      [77, 0, expect.objectContaining({ signal, timeoutMs: 1234 })],
      [77, 1, expect.objectContaining({ signal, timeoutMs: 1234 })],
    ]);
  });

  it('propagates an outage on page 0', async () => {
    const outage = new ProviderUnavailableError('Provider unavailable', {
      endpoint: 'e',
      method: 'GET',
      httpStatus: 503,
    });
    const { client } = fakeProvider(() => outage);
    await expect(collectAvatars(client, 9)).rejects.toBe(outage);
  });

  it('propagates a refusal of a page after the first', async () => {
    const refusal = notFound();
    const { client } = fakeProvider(paged(0, [[1, 2]], () => refusal));
    await expect(collectAvatars(client, 9)).rejects.toBe(refusal);
  });

  it('propagates an outage in the middle of the walk', async () => {
    const outage = new ProviderUnavailableError('Provider unreachable', { endpoint: 'e', method: 'GET' });
    const { client } = fakeProvider(paged(1, [[1], [2]], (page) => (page === 3 ? outage : [])));
    await expect(collectAvatars(client, 9)).rejects.toBe(outage);
  });
});

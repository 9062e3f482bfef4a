/**
 * How every avatar of an order is found, one page at a time. The contract leaves the first page
 * index (0 or 1) and the page size open, and a page before the first may be empty or an error:
 * start at 0, move on to 1 if needed, then walk upward until a page adds no avatar not seen yet
 * (an empty page, or a provider that ignores the page index and repeats itself). A walk told where
 * the provider's pages start (learnt from another order, see AvatarPageOrigin) starts there.
 *
 * Pure and synchronous; walkAvatarPages (avatar-page-origin.ts) drives it both for the client's
 * `collectAvatars` (all pages in one call) and for workflows that read each page as its own
 * activity (one provider request each).
 */
export class AvatarPageWalk<T> {
  private readonly seen = new Map<number, T>();
  private nextPage: number | undefined;
  private first: number | undefined;
  private read = 0;

  /** `start`: the provider's first page when known (0 or 1), else 0, the lowest it can be. */
  constructor(
    private readonly idOf: (avatar: T) => number,
    private readonly maxPages = 100,
    start = 0,
  ) {
    this.nextPage = start;
  }

  /** The page to read next, or undefined when the walk is over. */
  get next(): number | undefined {
    return this.nextPage;
  }

  /** The page index at which avatars were first found (0 or 1), or undefined when there were none. */
  get firstPage(): number | undefined {
    return this.first;
  }

  get pagesRead(): number {
    return this.read;
  }

  get avatars(): T[] {
    return [...this.seen.values()];
  }

  /** Records the answer for page `next` (an empty list when page 0 was refused) and moves on. */
  add(avatars: T[]): number | undefined {
    const page = this.nextPage;
    if (page === undefined) throw new Error('the avatar page walk is already over');
    this.read++;
    const fresh = avatars.filter((a) => !this.seen.has(this.idOf(a)));
    for (const avatar of fresh) this.seen.set(this.idOf(avatar), avatar);
    this.nextPage = this.continues(page, avatars.length, fresh.length) ? page + 1 : undefined;
    if (this.nextPage !== undefined && this.nextPage >= this.maxPages) this.nextPage = undefined;
    return this.nextPage;
  }

  private continues(page: number, returned: number, fresh: number): boolean {
    if (this.first === undefined) {
      if (fresh > 0) this.first = page;
      // Page 0 may lie before the first page: only give up once page 1 is empty as well.
      return page === 0 || fresh > 0;
    }
    // A 1-based provider may answer page 0 as if it were page 1; that single repeat is not the end.
    const repeatOfClampedFirstPage = this.first === 0 && page === 1 && returned > 0;
    return fresh > 0 || repeatOfClampedFirstPage;
  }
}

/**
 * How every avatar of an order is found, one page at a time. The contract leaves the first page
 * index (0 or 1) and the page size open, and a page before the first may be empty or an error:
 * start at 0, move on to 1 if needed, then walk upward until a page adds no avatar not seen yet
 * (an empty page, or a provider that ignores the page index and repeats itself). A walk told where
 * the provider's pages start (learnt from another order, see AvatarPageOrigin) starts there.
 *
 * Pure and synchronous; walkAvatarPages drives it both for the client's `collectAvatars` (all
 * pages in one call) and for workflows that read each page as its own activity (one provider
 * request each).
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

/** Where a walk of an order's avatar pages starts, and whether it is the one finding that out. */
export interface WalkStart {
  page: number;
  /** Starts at 0 to learn where the provider's pages start: report the outcome with learnt or ended. */
  probe: boolean;
}

/**
 * Where one provider's avatar pages start (0 or 1), learnt once and shared by the walks of one
 * run's orders, so that only the first walk pays for the page before the first. One walk probes
 * from page 0; walks that begin meanwhile wait for what it learns (the latency of its first one or
 * two reads) rather than read page 0 of their own order. A probe that ends without learning (its
 * order had no avatars, or a read failed for good) hands probing to the next waiting walk: only a
 * page with avatars tells where pages start, since a 0-based provider's page 0 of an empty order
 * is empty too.
 *
 * Pure and deterministic (promises only), so workflows can share one instance among their styles.
 */
export class AvatarPageOrigin {
  private first: number | undefined;
  private probing = false;
  private readonly waiting: ((start: WalkStart) => void)[] = [];

  /** The first page when learnt, else undefined. */
  get firstPage(): number | undefined {
    return this.first;
  }

  /** Where a new walk starts: the learnt first page; page 0 as the probe; or, while another walk probes, what it learns. */
  start(): Promise<WalkStart> {
    if (this.first !== undefined) return Promise.resolve({ page: this.first, probe: false });
    if (!this.probing) {
      this.probing = true;
      return Promise.resolve({ page: 0, probe: true });
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The probe found avatars first on `page`: every waiting walk starts there. */
  learnt(page: number): void {
    this.first = page;
    this.probing = false;
    for (const resolve of this.waiting.splice(0)) resolve({ page, probe: false });
  }

  /** The probe ended without learning: the next waiting walk probes instead. */
  ended(): void {
    if (this.first !== undefined) return;
    this.probing = false;
    const next = this.waiting.shift();
    if (next) {
      this.probing = true;
      next({ page: 0, probe: true });
    }
  }
}

export interface WalkedPages<T> {
  avatars: T[];
  /** The page index at which avatars were first found (0 or 1), or undefined when there were none. */
  firstPage: number | undefined;
  pagesRead: number;
}

/**
 * Walks one order's pages with `readPage` (one provider request per call), starting where `origin`
 * says and telling it what the walk learns; without an origin, from page 0.
 */
export async function walkAvatarPages<T>(
  idOf: (avatar: T) => number,
  readPage: (page: number) => Promise<T[]>,
  options: { origin?: AvatarPageOrigin; maxPages?: number } = {},
): Promise<WalkedPages<T>> {
  const { origin } = options;
  const start = origin ? await origin.start() : { page: 0, probe: false };
  const walk = new AvatarPageWalk<T>(idOf, options.maxPages, start.page);
  try {
    for (let page = walk.next; page !== undefined; page = walk.next) {
      walk.add(await readPage(page));
      if (start.probe && walk.firstPage !== undefined && origin?.firstPage === undefined)
        origin?.learnt(walk.firstPage);
    }
  } finally {
    if (start.probe) origin?.ended();
  }
  return { avatars: walk.avatars, firstPage: walk.firstPage, pagesRead: walk.pagesRead };
}

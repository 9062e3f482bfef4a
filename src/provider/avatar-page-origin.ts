import { AvatarPageWalk } from './avatar-page-walk';

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

import { AvatarPageWalk } from './avatar-page-walk';

/** Where a walk of an order's avatar pages starts, and whether it is the one finding that out. */
export interface WalkStart {
  page: number;
  /** Starts at 0 to learn where the provider's pages start: reports to the origin as it reads. */
  probe: boolean;
  /**
   * Set when the walk starts at page 1 because the probe read page 0 empty, before the probe has
   * seen avatars on page 1: true once it has; false when it ended without (its order may have no
   * avatars at all, on a provider counting from 0), and then this walk reads page 0 as well.
   */
  confirmed?: Promise<boolean>;
}

/**
 * Where one provider's avatar pages start (0 or 1), learnt once and shared by the walks of one
 * run's orders, so that only the first walk pays for the page before the first. One walk probes
 * from page 0; walks that begin meanwhile wait for its first read (one request's latency) rather
 * than read page 0 of their own order: avatars there mean pages start at 0; an empty page 0 lets
 * them start at page 1 at once, confirmed when the probe finds avatars on its page 1. Only a page
 * with avatars tells where pages start (a 0-based provider's page 0 of an order without avatars is
 * empty too), so a probe that ends without finding any (or whose read failed for good) teaches
 * nothing: walks that started at page 1 on its word read page 0 too, and the next walk to begin
 * probes again.
 *
 * Pure and deterministic (promises only), so workflows can share one instance among their styles.
 */
export class AvatarPageOrigin {
  private first: number | undefined;
  private probing = false;
  /** While the probe's page 0 was empty and its page 1 is not read yet. */
  private pageOneUnconfirmed:
    { confirmed: Promise<boolean>; settle: (confirmed: boolean) => void } | undefined;
  private readonly waiting: ((start: WalkStart) => void)[] = [];

  /** The first page when learnt, else undefined. */
  get firstPage(): number | undefined {
    return this.first;
  }

  /** Where a new walk starts: the learnt first page; page 0 as the probe; or, while another walk probes, what its first read says. */
  start(): Promise<WalkStart> {
    if (this.first !== undefined) return Promise.resolve({ page: this.first, probe: false });
    if (!this.probing) {
      this.probing = true;
      return Promise.resolve({ page: 0, probe: true });
    }
    if (this.pageOneUnconfirmed)
      return Promise.resolve({ page: 1, probe: false, confirmed: this.pageOneUnconfirmed.confirmed });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The probe read its page 0 empty: the waiting walks start at page 1, unconfirmed. */
  pageZeroEmpty(): void {
    if (this.first !== undefined || this.pageOneUnconfirmed) return;
    let settle: (confirmed: boolean) => void = () => undefined;
    const confirmed = new Promise<boolean>((resolve) => (settle = resolve));
    this.pageOneUnconfirmed = { confirmed, settle };
    for (const resolve of this.waiting.splice(0)) resolve({ page: 1, probe: false, confirmed });
  }

  /** The probe found avatars first on `page`: every waiting walk starts there. */
  learnt(page: number): void {
    this.first = page;
    this.probing = false;
    this.pageOneUnconfirmed?.settle(page === 1);
    this.pageOneUnconfirmed = undefined;
    for (const resolve of this.waiting.splice(0)) resolve({ page, probe: false });
  }

  /** The probe ended without learning: the next waiting walk probes instead. */
  ended(): void {
    if (this.first !== undefined) return;
    this.probing = false;
    this.pageOneUnconfirmed?.settle(false);
    this.pageOneUnconfirmed = undefined;
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

/** A first read that knows where the provider's pages start (see AvatarPageStart): which page it read, and its avatars. */
export type ReadFirstPage<T> = () => Promise<{ page: number; avatars: T[] }>;

/**
 * Walks one order's pages with `readPage` (one provider request per call), starting where `origin`
 * says and telling it what the walk learns; without an origin, from page 0. A walk that probes for
 * its run reads its first page with `readFirst` when given, which may start past page 0.
 */
export async function walkAvatarPages<T>(
  idOf: (avatar: T) => number,
  readPage: (page: number) => Promise<T[]>,
  options: { origin?: AvatarPageOrigin; maxPages?: number; readFirst?: ReadFirstPage<T> } = {},
): Promise<WalkedPages<T>> {
  const { origin } = options;
  const start: WalkStart = origin ? await origin.start() : { page: 0, probe: false };
  let walk = new AvatarPageWalk<T>(idOf, options.maxPages, start.page);
  let startedPastZero = false;
  const learn = (page: number, avatars: T[]) => {
    if (!start.probe || !origin || origin.firstPage !== undefined) return;
    if (walk.firstPage !== undefined) origin.learnt(walk.firstPage);
    else if (page === 0 && avatars.length === 0) origin.pageZeroEmpty();
  };
  try {
    if (start.probe && options.readFirst) {
      const first = await options.readFirst();
      walk = new AvatarPageWalk<T>(idOf, options.maxPages, first.page);
      startedPastZero = first.page > 0;
      walk.add(first.avatars);
      learn(first.page, first.avatars);
    }
    for (let page = walk.next; page !== undefined; page = walk.next) {
      const avatars = await readPage(page);
      walk.add(avatars);
      learn(page, avatars);
    }
  } finally {
    if (start.probe) origin?.ended();
  }
  const walked = { avatars: walk.avatars, firstPage: walk.firstPage, pagesRead: walk.pagesRead };
  // Started at page 1 on the word of a probe, or of a reader, and then found nothing: page 0 may hold avatars.
  const pageZeroUnread =
    (startedPastZero && walked.firstPage === undefined) ||
    (start.confirmed !== undefined && !(await start.confirmed));
  if (!pageZeroUnread) return walked;
  const seen = new Set(walked.avatars.map(idOf));
  const before = (await readPage(0)).filter((a) => !seen.has(idOf(a)));
  return {
    avatars: [...before, ...walked.avatars],
    firstPage: before.length > 0 ? 0 : walked.firstPage,
    pagesRead: walked.pagesRead + 1,
  };
}

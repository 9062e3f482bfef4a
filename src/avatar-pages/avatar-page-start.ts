/** How many orders whose page 0 read empty are remembered while their page 1 is awaited. */
const ORDERS_REMEMBERED = 1_000;

/**
 * Where the provider's avatar pages start, as one process has seen them across every order it
 * read: at 1 once some order's page 0 read empty (or refused) and that order's page 1 held
 * avatars. Each run's walks learn the same thing again for themselves (AvatarPageOrigin) at the
 * price of one request for page 0; a worker that remembers lets every later run start at page 1.
 *
 * Page 0 holding avatars proves nothing (a 1-based provider may answer page 0 as if it were page
 * 1), so the start is never learnt as 0: a process that has learnt nothing reads page 0 first, as
 * a walk does on its own.
 */
export class AvatarPageStart {
  private startsAtOne = false;
  /** Orders whose page 0 read empty, oldest first (a Set keeps insertion order). */
  private readonly emptyPageZero = new Set<number>();

  /** The page a walk that knows nothing else should read first: 1 once learnt, else 0. */
  get firstPage(): 0 | 1 {
    return this.startsAtOne ? 1 : 0;
  }

  /** Takes note of one page read of an order (an empty list for a page 0 the provider refused). */
  noteRead(orderId: number, page: number, avatarCount: number): void {
    if (this.startsAtOne) return;
    if (page === 0 && avatarCount === 0) {
      this.emptyPageZero.add(orderId);
      if (this.emptyPageZero.size > ORDERS_REMEMBERED) {
        const oldest = this.emptyPageZero.values().next().value;
        if (oldest !== undefined) this.emptyPageZero.delete(oldest);
      }
      return;
    }
    if (page === 1 && avatarCount > 0 && this.emptyPageZero.has(orderId)) {
      this.startsAtOne = true;
      this.emptyPageZero.clear();
    }
  }
}

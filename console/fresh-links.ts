import { useEffect, useRef } from 'preact/hooks';

/** The longest a refresh comes before the links expire; shorter lifetimes get a fifth of theirs. */
const MAX_MARGIN_MS = 60_000;
/**
 * The soonest a refresh is scheduled: a browser clock far ahead of the API's would otherwise read
 * every answer as expired and ask again at once, in a loop.
 */
const MIN_DELAY_MS = 1_000;

/**
 * Keeps a page's archived-avatar links working for as long as the tab is open: the API signs them
 * for a while (`linksExpireAt` of its status answer), and an image below the fold that had not
 * loaded yet would 404 once they expire. The status is read again shortly before then, from the
 * expiry each answer gives, and when the tab comes back to view late (background timers are
 * throttled). Answers the handler for an image that failed to load: one fresh read per avatar, so
 * an image that stays broken (erased meanwhile) does not make the page ask again and again.
 */
export function useFreshLinks(
  linksExpireAt: string | undefined,
  reload: () => Promise<void>,
): (key: string) => void {
  const reading = useRef<Promise<void> | undefined>(undefined);
  const retried = useRef(new Set<string>());
  const readAgain = () => {
    reading.current ??= reload().finally(() => (reading.current = undefined));
  };

  useEffect(() => {
    if (linksExpireAt === undefined) return undefined;
    const expiresMs = Date.parse(linksExpireAt);
    const remaining = expiresMs - Date.now();
    const margin = Math.min(MAX_MARGIN_MS, Math.max(0, remaining) / 5);
    const timer = setTimeout(readAgain, Math.max(MIN_DELAY_MS, remaining - margin));
    const backInView = () => {
      if (document.visibilityState === 'visible' && Date.now() >= expiresMs - margin) readAgain();
    };
    document.addEventListener('visibilitychange', backInView);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', backInView);
    };
  }, [linksExpireAt]);

  return (key) => {
    if (retried.current.has(key)) return;
    retried.current.add(key);
    readAgain();
  };
}

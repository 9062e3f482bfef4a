import { useEffect, useRef } from 'preact/hooks';

/** One avatar as the viewer shows it. */
export interface ViewedAvatar {
  key: string;
  src: string;
  alt: string;
  /** What the download is saved as, e.g. `watercolor-3.png`. */
  fileName: string;
}

/** A horizontal move of at least this many CSS pixels, more across than down, is a swipe. */
const SWIPE_PX = 40;

const FOCUSABLE = 'a[href], button:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * One avatar full size in a modal dialog, with the style's others a key press (ArrowLeft,
 * ArrowRight) or a swipe away, and a download of the one shown. A native modal <dialog> makes the
 * page behind inert and closes on Escape; Tab is kept inside it here too, since the browser's own
 * trap lets focus leave for its toolbar, and the focus goes back to the thumbnail that opened it.
 */
export function AvatarViewer(props: {
  title: string;
  avatars: ViewedAvatar[];
  index: number;
  onIndex: (index: number) => void;
  onClose: () => void;
  /** Called once per broken image, so the page can fetch fresh links (an expired one 404s). */
  onBroken?: (key: string) => void;
}) {
  const { title, avatars, index, onIndex, onClose, onBroken } = props;
  const dialog = useRef<HTMLDialogElement>(null);
  const swipeFrom = useRef<{ x: number; y: number } | undefined>(undefined);
  const avatar = avatars[index];
  const count = avatars.length;
  const move = (by: number) => onIndex((index + by + count) % count);

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    const element = dialog.current;
    if (!element) return undefined;
    if (!element.open) element.showModal();
    return () => {
      if (element.open) element.close();
      opener?.focus();
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowRight' && count > 1) {
      event.preventDefault();
      move(1);
    } else if (event.key === 'ArrowLeft' && count > 1) {
      event.preventDefault();
      move(-1);
    } else if (event.key === 'Tab') {
      const focusable = [...(dialog.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])];
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (!first || !last) return;
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  };

  const onPointerDown = (event: PointerEvent) => {
    swipeFrom.current = { x: event.clientX, y: event.clientY };
  };
  const onPointerUp = (event: PointerEvent) => {
    const from = swipeFrom.current;
    swipeFrom.current = undefined;
    if (!from || count < 2) return;
    const dx = event.clientX - from.x;
    const dy = event.clientY - from.y;
    if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) > Math.abs(dy)) move(dx < 0 ? 1 : -1);
  };

  return (
    <dialog
      ref={dialog}
      class="avatar-viewer"
      aria-modal="true"
      aria-labelledby="viewer-heading"
      onKeyDown={onKeyDown}
      // Escape (the dialog's cancel) and a form's close end up here: the page drops the viewer.
      onClose={onClose}
    >
      <div class="viewer-bar">
        <h2 id="viewer-heading">
          {title}: {index + 1} of {count}
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {avatar && (
        <figure
          class="viewer-image"
          onPointerDown={onPointerDown}
          onPointerUp={onPointerUp}
          onPointerCancel={() => (swipeFrom.current = undefined)}
        >
          <img
            key={avatar.key}
            src={avatar.src}
            alt={avatar.alt}
            draggable={false}
            onError={() => onBroken?.(avatar.key)}
          />
        </figure>
      )}
      <div class="actions">
        <button type="button" onClick={() => move(-1)} disabled={count < 2} aria-keyshortcuts="ArrowLeft">
          Previous
        </button>
        <button type="button" onClick={() => move(1)} disabled={count < 2} aria-keyshortcuts="ArrowRight">
          Next
        </button>
        {avatar && (
          <a class="button" href={avatar.src} download={avatar.fileName}>
            Download {avatar.fileName}
          </a>
        )}
      </div>
      <p class="hint">Left and right arrow keys, or a swipe, show the others.</p>
    </dialog>
  );
}

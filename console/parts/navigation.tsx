import { useEffect, useRef, useState } from 'preact/hooks';
import { href } from '../router';

const SECTIONS: Array<{ section: string; label: string; path: string[] }> = [
  { section: 'runs', label: 'Runs', path: ['runs'] },
  { section: 'new', label: 'New run', path: ['new'] },
  { section: 'models', label: 'Models', path: ['models'] },
  { section: 'campaigns', label: 'Campaigns', path: ['campaigns'] },
  { section: 'subjects', label: 'Subjects', path: ['subjects'] },
  { section: 'usage', label: 'Usage', path: ['usage'] },
];

/**
 * The console's header. On a narrow screen the links and "Sign out" fold behind "Menu" (a
 * disclosure button: the style sheet shows it, and hides the folded part, below 48rem only), so
 * none of them sits off the screen; on a wide one they are all in a row and "Menu" is not shown.
 */
export function Navigation({ current, onSignOut }: { current: string; onSignOut: () => void }) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  // A followed link opens its page in this same tab: the menu closes behind it.
  useEffect(() => setOpen(false), [current]);
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return;
    setOpen(false);
    toggle.current?.focus();
  };
  return (
    <header class="top" onKeyDown={closeOnEscape}>
      <a class="skip" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <p class="brand">Avatar pipeline</p>
      <button
        ref={toggle}
        type="button"
        class="quiet menu-toggle"
        aria-expanded={open}
        aria-controls="console-menu"
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      <div id="console-menu" class={`menu${open ? ' open' : ''}`}>
        <nav aria-label="Console">
          <ul>
            {SECTIONS.map(({ section, label, path }) => (
              <li key={section}>
                <a
                  href={href(path)}
                  aria-current={current === section ? 'page' : undefined}
                  onClick={() => setOpen(false)}
                >
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="quiet sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}

/** The skip link must not change the hash route: it moves the focus instead. */
function skipToMain(event: Event): void {
  event.preventDefault();
  document.querySelector<HTMLElement>('main h1')?.focus();
}

import { href } from '../router';

const SECTIONS: Array<{ section: string; label: string; path: string[] }> = [
  { section: 'runs', label: 'Runs', path: ['runs'] },
  { section: 'new', label: 'New run', path: ['new'] },
  { section: 'models', label: 'Models', path: ['models'] },
  { section: 'campaigns', label: 'Campaigns', path: ['campaigns'] },
  { section: 'subjects', label: 'Subjects', path: ['subjects'] },
];

export function Navigation({ current, onSignOut }: { current: string; onSignOut: () => void }) {
  return (
    <header class="top">
      <a class="skip" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <p class="brand">Avatar pipeline</p>
      <nav aria-label="Console">
        <ul>
          {SECTIONS.map(({ section, label, path }) => (
            <li key={section}>
              <a href={href(path)} aria-current={current === section ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <button type="button" class="quiet" onClick={onSignOut}>
        Sign out
      </button>
    </header>
  );
}

/** The skip link must not change the hash route: it moves the focus instead. */
function skipToMain(event: Event): void {
  event.preventDefault();
  document.querySelector<HTMLElement>('main h1')?.focus();
}

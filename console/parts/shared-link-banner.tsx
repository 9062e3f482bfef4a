import type { SharedSection } from '../session';

const WHAT: Record<SharedSection, string> = { runs: 'one run', campaigns: 'one campaign' };

/** The header of a tab that follows a shared link: no navigation, what the link allows, a way out. */
export function SharedLinkBanner({ section, onLeave }: { section: SharedSection; onLeave: () => void }) {
  return (
    <header class="top">
      <p class="brand">Avatar pipeline</p>
      <p role="note">Signed in with a link to {WHAT[section]}: read only.</p>
      <button type="button" class="quiet" onClick={onLeave}>
        Leave the shared {section === 'runs' ? 'run' : 'campaign'}
      </button>
    </header>
  );
}

import type { LinkSection } from '../session';

const WHAT: Record<LinkSection, string> = {
  runs: 'a link to one run: read only',
  campaigns: 'a link to one campaign: read only',
  review: 'a review link for one run: its review only',
};
const LEAVE: Record<LinkSection, string> = {
  runs: 'Leave the shared run',
  campaigns: 'Leave the shared campaign',
  review: 'Leave the review',
};

/** The header of a tab that follows a shared link: no navigation, what the link allows, a way out. */
export function SharedLinkBanner({ section, onLeave }: { section: LinkSection; onLeave: () => void }) {
  return (
    <header class="top">
      <p class="brand">Avatar pipeline</p>
      <p role="note">Signed in with {WHAT[section]}.</p>
      <button type="button" class="quiet" onClick={onLeave}>
        {LEAVE[section]}
      </button>
    </header>
  );
}

/** The header of a tab that follows a shared run link: no navigation, what the link allows, a way out. */
export function SharedRunBanner({ onLeave }: { onLeave: () => void }) {
  return (
    <header class="top">
      <p class="brand">Avatar pipeline</p>
      <p role="note">Signed in with a link to one run: read only.</p>
      <button type="button" class="quiet" onClick={onLeave}>
        Leave the shared run
      </button>
    </header>
  );
}

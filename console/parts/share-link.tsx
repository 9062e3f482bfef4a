import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { SharedSection } from '../session';
import { sharedLinkUrl } from '../shared-link';
import { Alert } from './alert';
import { CopyableLink } from './copyable-link';

/** POST /v1/{pipelines,campaigns}/{id}/access-tokens. */
interface AccessToken {
  token: string;
  expiresAt: string;
}

const API_PATH: Record<SharedSection, string> = { runs: 'pipelines', campaigns: 'campaigns' };
const WHAT: Record<SharedSection, string> = { runs: 'run', campaigns: 'campaign' };
const SHOWS: Record<SharedSection, string> = {
  runs: 'its state, progress and avatars',
  campaigns: 'its counts, chart and results',
};

/**
 * "Share": a read-only link to one run or campaign, carrying a browser access token for it alone
 * (POST …/access-tokens), for someone without an API token.
 */
export function ShareLink({ section, id }: { section: SharedSection; id: string }) {
  const [shared, setShared] = useState<{ url: string; expiresAt: string } | undefined>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => setShared(undefined), [section, id]);

  const share = async () => {
    setBusy(true);
    setError('');
    try {
      const grant = await callApi<AccessToken>(
        'POST',
        `/v1/${API_PATH[section]}/${encodeURIComponent(id)}/access-tokens`,
        { body: {} },
      );
      setShared({ url: sharedLinkUrl(section, id, grant.token), expiresAt: grant.expiresAt });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const field = `share-link-${section}`;
  return (
    <>
      <div class="actions">
        <button type="button" onClick={share} disabled={busy}>
          Share
        </button>
      </div>
      {shared && (
        <CopyableLink id={field} label={`Read-only link to this ${WHAT[section]}`} url={shared.url}>
          Anyone with this link can watch this {WHAT[section]} ({SHOWS[section]}) until{' '}
          <time dateTime={shared.expiresAt}>{new Date(shared.expiresAt).toLocaleString()}</time>; nothing
          else.
        </CopyableLink>
      )}
      <Alert>{error}</Alert>
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import { Alert } from './alert';
import { CopyableLink } from './copyable-link';

/** POST /v1/pipelines/{id}/review-links. */
interface ReviewLinkAnswer {
  url: string;
  expiresAt: string;
  reviewer: string;
}

/**
 * "Create a review link": a link to this run's review page for a reviewer without an API token
 * (POST …/review-links). Whoever holds it may decide on this run's review until it expires or the
 * review is done, and nothing else.
 */
export function ReviewLink({ workflowId }: { workflowId: string }) {
  const [link, setLink] = useState<ReviewLinkAnswer | undefined>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => setLink(undefined), [workflowId]);

  const create = async () => {
    setBusy(true);
    setError('');
    try {
      setLink(
        await callApi<ReviewLinkAnswer>(
          'POST',
          `/v1/pipelines/${encodeURIComponent(workflowId)}/review-links`,
          {
            body: {},
          },
        ),
      );
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <div class="actions">
        <button type="button" class="quiet" onClick={create} disabled={busy}>
          Create a review link
        </button>
      </div>
      {link && (
        <CopyableLink id="review-link" label="Review link for this run" url={link.url}>
          Whoever opens this link can approve, reject and regenerate this run’s styles until{' '}
          <time dateTime={link.expiresAt}>{new Date(link.expiresAt).toLocaleString()}</time> or until the
          review is done; nothing else. Its decisions are recorded as {link.reviewer.slice(0, 17)}….
        </CopyableLink>
      )}
      <Alert>{error}</Alert>
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import { Alert } from './alert';

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
  const [copied, setCopied] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => setLink(undefined), [workflowId]);

  const create = async () => {
    setBusy(true);
    setError('');
    setCopied('');
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
  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link.url);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused by the browser: select the link and copy it.');
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
        <div class="share">
          <label for="review-link">Review link for this run</label>
          <div class="copyable">
            <input
              id="review-link"
              readOnly
              value={link.url}
              aria-describedby="review-link-expiry"
              onFocus={(e) => e.currentTarget.select()}
            />
            <button type="button" class="quiet" onClick={copy}>
              Copy
            </button>
          </div>
          <p class="hint" id="review-link-expiry">
            Whoever opens this link can approve, reject and regenerate this run’s styles until{' '}
            <time dateTime={link.expiresAt}>{new Date(link.expiresAt).toLocaleString()}</time> or until the
            review is done; nothing else. Its decisions are recorded as {link.reviewer.slice(0, 17)}….
          </p>
          <Alert kind="info">{copied}</Alert>
        </div>
      )}
      <Alert>{error}</Alert>
    </>
  );
}

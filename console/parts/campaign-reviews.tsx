import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { PipelineListItem } from '../api-types';
import { href } from '../router';
import { Alert } from './alert';

/** POST /v1/campaigns/{id}/reviews. */
interface BatchAnswer {
  decided: number;
  unchanged: number;
  refused: number;
  results: Array<{
    workflowId: string;
    effect: 'decided' | 'unchanged' | 'refused';
    issues?: Array<{ message: string }>;
  }>;
}

const SHOWN = 50;

/**
 * A campaign's subjects waiting for a person: each with a link to its run's review page, and one
 * decision for all of those listed (POST …/reviews). Read again whenever the campaign's count of
 * them changes. `readOnly`: a shared link, which may look but not decide.
 */
export function CampaignReviews(props: { campaignId: string; awaiting: number; readOnly: boolean }) {
  const { campaignId, awaiting, readOnly } = props;
  const [runs, setRuns] = useState<PipelineListItem[]>([]);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

  const load = async () => {
    if (readOnly) return;
    try {
      const query = new URLSearchParams({ campaignId, status: 'awaiting-review', limit: String(SHOWN) });
      const page = await callApi<{ pipelines: PipelineListItem[] }>('GET', `/v1/pipelines?${query}`);
      setRuns(page.pipelines);
      setError('');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(), [campaignId, awaiting]);

  const decideAll = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setNotice('');
    setError('');
    try {
      const answer = await callApi<BatchAnswer>(
        'POST',
        `/v1/campaigns/${encodeURIComponent(campaignId)}/reviews`,
        {
          body: { reviews: runs.map((run) => ({ workflowId: run.workflowId, decision })) },
        },
      );
      const refusals = answer.results
        .filter((r) => r.effect === 'refused')
        .map((r) => `${r.workflowId}: ${(r.issues ?? []).map((i) => i.message).join('; ')}`);
      setNotice(`${answer.decided} run(s) ${decision === 'approve' ? 'approved' : 'rejected'}.`);
      if (refusals.length > 0) setError(`Refused: ${refusals.join(' · ')}`);
      await load();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="campaign-reviews-heading">
      <h2 id="campaign-reviews-heading">Awaiting review ({awaiting})</h2>
      {awaiting === 0 && <p>No subject waits for a decision now.</p>}
      {readOnly && awaiting > 0 && <p class="hint">Reviewers decide through their own review links.</p>}
      {!readOnly && runs.length > 0 && (
        <>
          <ul class="review-list">
            {runs.map((run) => (
              <li key={run.workflowId}>
                <a href={href(['review', run.workflowId])}>Review {run.subjectId ?? run.workflowId}</a>
              </li>
            ))}
          </ul>
          {awaiting > runs.length && <p class="hint">The first {runs.length} of them.</p>}
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => void decideAll('approve')}>
              Approve all {runs.length} listed
            </button>
            <button type="button" class="quiet" disabled={busy} onClick={() => void decideAll('reject')}>
              Reject all {runs.length} listed
            </button>
          </div>
        </>
      )}
      <Alert>{error}</Alert>
      <Alert kind="info">{notice}</Alert>
    </section>
  );
}

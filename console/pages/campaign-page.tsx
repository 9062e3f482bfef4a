import { useState } from 'preact/hooks';
import { authHeaders, callApi, messageOf } from '../api';
import type { CampaignProgress, CampaignStatus } from '../api-types';
import { useCampaignLive } from '../campaign-live';
import { formatDuration } from '@avatar-pipeline/client/contracts/format-duration';
import { windowWords } from '@avatar-pipeline/client/views/window-words';
import type { StreamState } from '../event-stream';
import { Alert } from '../parts/alert';
import { ConfirmButton } from '../parts/confirm-button';
import { PageHeading } from '../parts/page-heading';
import { CampaignReviews } from '../parts/campaign-reviews';
import { CampaignSubjects } from '../parts/campaign-subjects';
import { ShareLink } from '../parts/share-link';
import { ThroughputChart } from '../parts/throughput-chart';

const COUNTS: Array<[keyof CampaignProgress['counts'], string]> = [
  ['done', 'Done'],
  ['partial', 'Partial'],
  ['failed', 'Failed'],
  ['running', 'Running'],
  ['pending', 'Pending'],
  ['cancelled', 'Cancelled'],
];

/**
 * One campaign: counts and the throughput chart live from its event stream, its results, and its
 * controls. `readOnly`: opened from a shared link, whose token reads this campaign only (no controls).
 */
export function CampaignPage({ campaignId, readOnly = false }: { campaignId: string; readOnly?: boolean }) {
  const base = `/v1/campaigns/${encodeURIComponent(campaignId)}`;
  const { status, progress, samples, stream, error, reload, followAgain } = useCampaignLive(campaignId);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

  const act = (action: 'pause' | 'resume' | 'cancel' | 'retry', done: string) => async () => {
    setBusy(true);
    setNotice('');
    try {
      await callApi('POST', `${base}/${action}`, action === 'retry' ? { body: {} } : {});
      setNotice(done);
      await reload();
      if (action === 'retry' || action === 'resume') followAgain();
    } catch (err) {
      setNotice(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const download = async () => {
    setNotice('');
    try {
      const response = await fetch(`${base}/results.csv`, { headers: authHeaders() });
      if (!response.ok) throw new Error(`The API answered ${response.status}`);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = `${campaignId}-results.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setNotice(`The results could not be downloaded: ${messageOf(err)}`);
    }
  };

  const state = progress?.state;
  const open = state === 'running' || state === 'paused';
  // The API retries failed and cancelled subjects (PARTIAL ones kept what they made).
  const retryable = progress ? progress.counts.failed + progress.counts.cancelled > 0 : false;

  return (
    <>
      <PageHeading title={`Campaign ${campaignId}`}>Campaign {campaignId}</PageHeading>
      <Alert>{error}</Alert>
      {status && (
        <section aria-labelledby="campaign-state-heading">
          <h2 id="campaign-state-heading">State</h2>
          <CampaignFacts status={status} progress={progress} stream={stream} />
          <div class="actions">
            {!readOnly && state === 'running' && (
              <button type="button" onClick={act('pause', 'Paused: no more subjects start.')} disabled={busy}>
                Pause
              </button>
            )}
            {!readOnly && state === 'paused' && (
              <button type="button" onClick={act('resume', 'Resumed.')} disabled={busy}>
                Resume
              </button>
            )}
            {!readOnly && open && (
              <ConfirmButton
                label="Cancel campaign"
                question="Cancel this campaign?"
                explanation="No more subjects start, and the runs under way are cancelled; subjects already done keep their avatars. A cancelled campaign's failed and cancelled subjects can be retried."
                confirm="Yes, cancel the campaign"
                onConfirm={act('cancel', 'Cancellation requested.')}
                disabled={busy}
              />
            )}
            {!readOnly && retryable && (
              <button type="button" onClick={act('retry', 'Failed subjects started again.')} disabled={busy}>
                Retry failed subjects
              </button>
            )}
            <button type="button" onClick={download}>
              Download results (CSV)
            </button>
          </div>
          {!readOnly && <ShareLink section="campaigns" id={campaignId} />}
          <Alert kind="info">{notice}</Alert>
        </section>
      )}
      {progress?.awaitingReview && (
        <CampaignReviews
          campaignId={campaignId}
          awaiting={progress.awaitingReview.count}
          readOnly={readOnly}
        />
      )}
      <section aria-labelledby="chart-heading">
        <h2 id="chart-heading">Throughput</h2>
        <ThroughputChart samples={samples} />
      </section>
      {status && <CampaignSubjects campaignId={campaignId} progress={progress} readOnly={readOnly} />}
      {progress && progress.recentFailures.length > 0 && (
        <section aria-labelledby="failures-heading">
          <h2 id="failures-heading">Recent failures</h2>
          <ul class="failures">
            {progress.recentFailures.map((f) => (
              <li key={f.subjectId}>
                {f.subjectId}: {f.error}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

/** The campaign's state, its window and its subjects counted by state. */
function CampaignFacts({
  status,
  progress,
  stream,
}: {
  status: CampaignStatus;
  progress: CampaignProgress | undefined;
  stream: StreamState;
}) {
  const state = progress?.state;
  const open = state === 'running' || state === 'paused';
  return (
    <>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <span class={`state ${state ?? ''}`}>{state ?? status.status.toLowerCase()}</span>
        </dd>
        <dt>Updates</dt>
        <dd>{stream === 'live' ? 'Live' : stream === 'ended' ? 'Finished' : stream}</dd>
        {progress && (
          <>
            <dt>Subjects</dt>
            <dd>{progress.total}</dd>
            <dt>Started</dt>
            <dd>
              <time dateTime={progress.startedAt}>{new Date(progress.startedAt).toLocaleString()}</time>
            </dd>
            <dt>Elapsed</dt>
            <dd>{formatDuration(progress.elapsedMs)}</dd>
            <dt>{open ? 'Rate' : 'Average rate'}</dt>
            <dd>{rateOf(progress, open)} subjects a minute</dd>
            {open && (
              <>
                <dt>Time left</dt>
                <dd>
                  {progress.etaMs === undefined ? 'not known yet' : `about ${formatDuration(progress.etaMs)}`}
                </dd>
              </>
            )}
            <dt>Subjects at once</dt>
            <dd>{windowWords(progress.window)}</dd>
          </>
        )}
      </dl>
      {progress && (
        <div role="group" aria-label="Subjects by state">
          <dl class="counts">
            {COUNTS.map(([key, label]) => (
              <div key={key}>
                <dt>{label}</dt>
                <dd>{progress.counts[key]}</dd>
              </div>
            ))}
          </dl>
        </div>
      )}
    </>
  );
}

/**
 * Subjects finished a minute: the campaign's recent rate while it runs (which falls to 0 once
 * nothing is left to finish), over its whole time once it has ended.
 */
function rateOf(progress: CampaignProgress, open: boolean): number {
  if (open) return progress.throughputPerMinute;
  const { done, partial, failed, cancelled } = progress.counts;
  const minutes = progress.elapsedMs / 60_000;
  return minutes > 0 ? Math.round(((done + partial + failed + cancelled) / minutes) * 10) / 10 : 0;
}

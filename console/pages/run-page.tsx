import { useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { PipelineResult, RunStarted } from '../api-types';
import type { StreamState } from '../event-stream';
import { Alert } from '../parts/alert';
import { useFreshLinks } from '../fresh-links';
import { ConfirmButton } from '../parts/confirm-button';
import { AvatarGallery, galleryOfProgress, galleryOfResult, useSteadyLinks } from '../parts/avatar-gallery';
import { PageHeading } from '../parts/page-heading';
import { ProgressBars } from '../parts/progress-bars';
import { ShareLink } from '../parts/share-link';
import { styleName, useRunStyles } from '../parts/style-choices';
import { href, navigate } from '../router';
import { isOpen, useRunStatus } from '../run-status';
import { formatDuration } from '@avatar-pipeline/client/contracts/format-duration';
import { runStateWord, trainingView } from '@avatar-pipeline/client/views/progress-states';

const STREAM_WORDS: Record<StreamState, string> = {
  connecting: 'Connecting to live updates…',
  live: 'Live',
  reconnecting: 'Connection lost: resuming…',
  ended: 'Finished',
  refused: 'Live updates refused',
};

/**
 * One run: its progress live from the event stream, its archived avatars once collected, and what
 * can be done with it (cancel, retry the failed styles, generate more styles, open it in Temporal,
 * share a read-only link). `readOnly`: opened from a shared link, whose token reads this run only.
 */
export function RunPage({ workflowId, readOnly = false }: { workflowId: string; readOnly?: boolean }) {
  const { status, progress, stream, error, reload: load } = useRunStatus(workflowId);
  const styles = useRunStyles(status, !readOnly);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setNotice('');
    try {
      await what();
    } catch (err) {
      setNotice(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const cancel = () =>
    act(async () => {
      await callApi('POST', `/v1/pipelines/${encodeURIComponent(workflowId)}/cancel`);
      setNotice('Cancellation requested.');
      await load();
    });
  // The API names a retry after the run and its styles: a second click, from this tab or another,
  // answers the retry the first one started.
  const retry = () =>
    act(async () => {
      const started = await callApi<RunStarted>(
        'POST',
        `/v1/pipelines/${encodeURIComponent(workflowId)}/retry`,
      );
      navigate(['runs', started.workflowId]);
    });

  const result = status?.result as (PipelineResult & { subjectId?: string }) | undefined;
  const modelId = result?.modelId ?? progress?.modelId;
  const generations = result && 'generations' in result ? result.generations : [];
  // Each style's avatars as soon as it is done; the result's once the run has ended.
  const gallery = useSteadyLinks(
    result && 'generations' in result ? galleryOfResult(result) : galleryOfProgress(progress),
    status?.linksExpireAt,
  );
  const linkBroken = useFreshLinks(status?.linksExpireAt, load);
  const failedStyles = generations
    .filter((g) => g.status !== 'DONE')
    .map((g) => styleName(styles, g.styleId));
  const ended = status !== undefined && !isOpen(status.state);
  const stateWord = status && runStateWord(status.state, result?.status);
  // The progress names the subject while the run runs; the result once it has ended.
  const subjectId = result?.subjectId ?? progress?.subjectId;
  // More styles need a trained model: not offered on one whose training failed or was cancelled.
  const trained =
    generations.length > 0 || (progress !== undefined && trainingView(progress).state === 'done');
  // Once retried, the run offers its retry (which can itself be retried), not a second one.
  const retriedBy = status?.retry;
  const canRetry =
    ended &&
    retriedBy === undefined &&
    (failedStyles.length > 0 || status.state === 'failed') &&
    modelId !== undefined;

  return (
    <>
      <PageHeading title={`Run ${workflowId}`}>Run {workflowId}</PageHeading>
      <Alert>{error}</Alert>
      {status && (
        <section aria-labelledby="run-state-heading">
          <h2 id="run-state-heading">State</h2>
          <dl class="facts">
            <dt>State</dt>
            <dd>
              <span class={`state ${stateWord}`}>{stateWord}</span>
            </dd>
            <dt>Stage</dt>
            <dd>{progress?.stage ?? '—'}</dd>
            {modelId !== undefined && (
              <>
                <dt>Model</dt>
                <dd>{modelId}</dd>
              </>
            )}
            {subjectId && (
              <>
                <dt>Subject</dt>
                <dd>{subjectId}</dd>
              </>
            )}
            <dt>Started</dt>
            <dd>
              <time dateTime={status.startedAt}>{new Date(status.startedAt).toLocaleString()}</time>
            </dd>
            {status.closedAt && (
              <>
                <dt>Took</dt>
                <dd>{formatDuration(Date.parse(status.closedAt) - Date.parse(status.startedAt))}</dd>
              </>
            )}
            <dt>Updates</dt>
            <dd>{STREAM_WORDS[stream]}</dd>
          </dl>
          {status.error && <Alert>{status.error.message}</Alert>}
          {!readOnly && (
            <div class="actions">
              {isOpen(status.state) && (
                <ConfirmButton
                  label="Cancel run"
                  question="Cancel this run?"
                  explanation="Its orders at the provider are left to finish or are stopped, and no more avatars are made; styles already done keep their avatars."
                  confirm="Yes, cancel the run"
                  onConfirm={cancel}
                  disabled={busy}
                />
              )}
              {progress?.review && progress.review.state !== 'closed' && isOpen(status.state) && (
                <a class="button" href={href(['review', workflowId])}>
                  Review this run
                </a>
              )}
              {canRetry && (
                <button type="button" onClick={retry} disabled={busy}>
                  Retry failed styles
                </button>
              )}
              {retriedBy && (
                <a href={href(['runs', retriedBy.workflowId])}>Failed styles retried ({retriedBy.state})</a>
              )}
              {modelId !== undefined && ended && trained && (
                // More avatars of the run's subject are that subject's: erasing them erases these too.
                <a
                  class="button"
                  href={href(['models', String(modelId), 'generate'], { subject: subjectId })}
                >
                  Generate more styles
                </a>
              )}
              {status.links.temporalUi && (
                <a href={status.links.temporalUi} target="_blank" rel="noopener noreferrer">
                  Open in Temporal UI
                </a>
              )}
            </div>
          )}
          {!readOnly && <ShareLink section="runs" id={workflowId} />}
          <Alert kind="info">{notice}</Alert>
        </section>
      )}
      {progress && <ProgressBars progress={progress} styles={styles} />}
      {status && (
        <AvatarGallery
          gallery={gallery}
          styles={styles}
          running={!ended}
          workflowId={workflowId}
          onBroken={linkBroken}
        />
      )}
    </>
  );
}

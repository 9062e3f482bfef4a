import { useState } from 'preact/hooks';
import { ApiFailure, callApi, messageOf } from '../api';
import type { PipelineProgress } from '../api-types';
import { Alert } from '../parts/alert';
import { galleryOfProgress, useSteadyLinks, type GalleryAvatar } from '../parts/avatar-gallery';
import { useFreshLinks } from '../fresh-links';
import { PageHeading } from '../parts/page-heading';
import { ReviewLink } from '../parts/review-link';
import { styleName, useRunStyles, type Style } from '../parts/style-choices';
import { href } from '../router';
import { isOpen, useRunStatus } from '../run-status';
import { savedSharedLink } from '../session';
import { linkExpiry } from '../shared-link';

type Review = NonNullable<PipelineProgress['review']>;
type StyleReview = Review['styles'][number];
type Decision = 'approve' | 'reject' | 'regenerate';
interface DecisionRequest {
  styleId: number;
  avatarId?: number;
  decision: Decision;
  orderId?: number;
}

const STYLE_STATE_WORDS: Record<StyleReview['state'], string> = {
  pending: 'still generating',
  awaiting: 'awaiting your decision',
  approved: 'approved',
  rejected: 'rejected',
  regenerating: 'ordered again',
  failed: 'failed in generation',
};

const GATE_WORDS: Record<Review['state'], string> = {
  waiting: 'The run is still generating. A decision on a whole style is kept until its avatars are in.',
  open: 'Decide on each style, or on single avatars. Only approved work is delivered.',
  closed: 'The review is done: every style is decided.',
};

/**
 * A run's review: each style's avatars under review with approve, reject and regenerate for the
 * style, and approve and reject for each avatar. Every click is one decision sent at once, naming
 * the order it is about, so a second click or a stale tab never decides on a newer order.
 * `viaLink`: opened from a review link, whose token reads and decides on this run only.
 */
export function ReviewPage({ workflowId, viaLink = false }: { workflowId: string; viaLink?: boolean }) {
  const { status, progress, error, setProgress, reload } = useRunStatus(workflowId);
  const styles = useRunStyles(status, !viaLink);
  const [notice, setNotice] = useState('');
  const [refusal, setRefusal] = useState('');
  const [busy, setBusy] = useState(false);
  const gallery = useSteadyLinks(galleryOfProgress(progress), status?.linksExpireAt);
  const linkBroken = useFreshLinks(status?.linksExpireAt, reload);
  const review = progress?.review;

  const decide = async (request: DecisionRequest, words: string) => {
    setBusy(true);
    setNotice('');
    setRefusal('');
    try {
      const answer = await callApi<{ review: Review }>(
        'POST',
        `/v1/pipelines/${encodeURIComponent(workflowId)}/review`,
        { body: { decisions: [request] } },
      );
      if (progress) setProgress({ ...progress, review: answer.review });
      setNotice(`${words}: done.`);
    } catch (err) {
      const named = err instanceof ApiFailure ? err.issues.map((issue) => issue.message) : [];
      setRefusal(named.length > 0 ? `${messageOf(err)}: ${named.join('; ')}` : messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const ended = status !== undefined && !isOpen(status.state);
  // The API answers an expired link as a run it does not know; the reader is told why.
  const expiry = viaLink ? linkExpiry(savedSharedLink()?.token ?? '') : undefined;
  const expired = expiry !== undefined && expiry.getTime() <= Date.now() && (error || refusal);
  return (
    <>
      <PageHeading title={`Review ${workflowId}`}>Review run {workflowId}</PageHeading>
      <Alert>
        {expired
          ? `This review link expired on ${expiry.toLocaleString()}: ask whoever sent it for a new one.`
          : error}
      </Alert>
      {!viaLink && (
        <p>
          <a href={href(['runs', workflowId])}>Back to the run</a>
        </p>
      )}
      {status && !review && <p>This run was not started with review: there is nothing to decide.</p>}
      {review && (
        <section aria-labelledby="review-state-heading">
          <h2 id="review-state-heading">
            {ended ? `The run has ended (${status.state})` : 'What to decide'}
          </h2>
          <p>{GATE_WORDS[review.state]}</p>
          {review.deadlineAt && review.state !== 'closed' && (
            <p class="hint">
              At <time dateTime={review.deadlineAt}>{new Date(review.deadlineAt).toLocaleString()}</time>,
              every style still undecided is {review.onDeadline === 'approve' ? 'approved' : 'rejected'}.
            </p>
          )}
          {review.deadlinePassed && <p class="hint">The deadline decided what was left undecided.</p>}
          {!viaLink && review.state !== 'closed' && !ended && <ReviewLink workflowId={workflowId} />}
        </section>
      )}
      <Alert>{refusal}</Alert>
      <Alert kind="info">{notice}</Alert>
      {review?.styles.map((style) => (
        <StyleUnderReview
          key={style.styleId}
          style={style}
          avatars={gallery.find((g) => g.styleId === style.styleId)?.avatars ?? []}
          styles={styles}
          disabled={busy || ended || review.state === 'closed'}
          decide={decide}
          onBroken={linkBroken}
        />
      ))}
    </>
  );
}

function StyleUnderReview(props: {
  style: StyleReview;
  avatars: GalleryAvatar[];
  styles: Style[] | undefined;
  disabled: boolean;
  decide: (request: DecisionRequest, words: string) => Promise<void>;
  onBroken: (key: string) => void;
}) {
  const { style, styles, disabled, decide, onBroken } = props;
  const name = styleName(styles, style.styleId);
  const open = style.state === 'awaiting' || (style.state === 'pending' && style.kept === undefined);
  // The avatars shown are the order under review's (a regenerated style's old ones are gone), with
  // their decisions once taken.
  const shown: readonly StyleReview['state'][] = ['awaiting', 'approved', 'rejected'];
  const avatars = shown.includes(style.state) ? props.avatars : [];
  const decisionOf = (avatarId: number) => style.avatars.find((a) => a.avatarId === avatarId)?.decision;
  const onStyle = (decision: Decision, words: string) =>
    decide(
      {
        styleId: style.styleId,
        decision,
        ...(style.orderId !== undefined ? { orderId: style.orderId } : {}),
      },
      `${words} ${name}`,
    );
  const heading = `review-style-${style.styleId}`;
  return (
    <section aria-labelledby={heading} class="review-style">
      <h2 id={heading}>
        {name} <span class={`state ${style.state}`}>{STYLE_STATE_WORDS[style.state]}</span>
      </h2>
      {style.kept && <p class="hint">“{style.kept}” is kept for when its avatars are in.</p>}
      {style.regeneratedOrders.length > 0 && (
        <p class="hint">Ordered again {style.regeneratedOrders.length} time(s) on a reviewer’s word.</p>
      )}
      {open && (
        <div class="actions" role="group" aria-label={`Decide on ${name}`}>
          <button type="button" disabled={disabled} onClick={() => onStyle('approve', 'Approve')}>
            Approve {name}
          </button>
          <button type="button" class="quiet" disabled={disabled} onClick={() => onStyle('reject', 'Reject')}>
            Reject {name}
          </button>
          <button
            type="button"
            class="quiet"
            disabled={disabled}
            onClick={() => onStyle('regenerate', 'Regenerate')}
          >
            Regenerate {name}
          </button>
        </div>
      )}
      {avatars.length > 0 && (
        <ul class="gallery review-gallery">
          {avatars.map((avatar) => {
            const decided = decisionOf(avatar.avatarId);
            const label = `${name} avatar ${avatar.avatarId}`;
            const onAvatar = (decision: 'approve' | 'reject', words: string) =>
              decide(
                {
                  styleId: style.styleId,
                  avatarId: avatar.avatarId,
                  decision,
                  ...(style.orderId !== undefined ? { orderId: style.orderId } : {}),
                },
                `${words} ${label}`,
              );
            return (
              <li key={avatar.avatarId}>
                <figure>
                  {avatar.archivedUrl ? (
                    <img
                      src={avatar.archivedUrl}
                      alt={label}
                      loading="lazy"
                      width={160}
                      height={160}
                      onError={() => onBroken(`${style.styleId}/${avatar.avatarId}`)}
                    />
                  ) : (
                    <p class="hint">Avatar {avatar.avatarId} (not archived)</p>
                  )}
                  <figcaption>
                    {decided ? (
                      <span class={`state ${decided === 'approve' ? 'approved' : 'rejected'}`}>
                        {decided === 'approve' ? 'Approved' : 'Rejected'}
                      </span>
                    ) : (
                      <span class="avatar-decisions">
                        <button
                          type="button"
                          class="quiet"
                          disabled={disabled}
                          aria-label={`Approve ${label}`}
                          onClick={() => onAvatar('approve', 'Approve')}
                        >
                          Approve
                        </button>
                        <button
                          type="button"
                          class="quiet"
                          disabled={disabled}
                          aria-label={`Reject ${label}`}
                          onClick={() => onAvatar('reject', 'Reject')}
                        >
                          Reject
                        </button>
                      </span>
                    )}
                  </figcaption>
                </figure>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { CampaignProgress, CampaignSummary } from '../api-types';
import { href } from '../router';
import { Alert } from './alert';

type SubjectStatus = CampaignSummary['subjects'][number]['status'];

const STATUS_WORDS: Record<SubjectStatus, string> = {
  PENDING: 'not started yet',
  DONE: 'done',
  PARTIAL: 'partly done: some styles failed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

/** Rows shown at once: a campaign may hold thousands of subjects, and the CSV holds them all. */
const SHOWN = 200;

/**
 * The campaign's subjects with their states and links to their runs (GET …/summary), read again
 * whenever another subject finishes. A subject the summary still counts as pending but the
 * progress names in flight is running, and its run can be opened already.
 */
export function CampaignSubjects(props: {
  campaignId: string;
  progress: CampaignProgress | undefined;
  /** A shared campaign link reads this campaign only: its subjects' runs cannot be opened with it. */
  readOnly: boolean;
}) {
  const { campaignId, progress, readOnly } = props;
  const [summary, setSummary] = useState<CampaignSummary | undefined>();
  const [error, setError] = useState('');
  const counts = progress?.counts;
  const finished = counts ? counts.done + counts.partial + counts.failed + counts.cancelled : 0;

  useEffect(() => {
    callApi<CampaignSummary>('GET', `/v1/campaigns/${encodeURIComponent(campaignId)}/summary`)
      .then((answer) => {
        setSummary(answer);
        setError('');
      })
      .catch((err: unknown) => setError(`The subjects could not be loaded: ${messageOf(err)}`));
  }, [campaignId, finished]);

  const running = new Set(progress?.inFlight ?? []);
  const subjects = summary?.subjects ?? [];
  return (
    <section aria-labelledby="subjects-heading">
      <h2 id="subjects-heading">Subjects</h2>
      <Alert>{error}</Alert>
      {summary === undefined ? (
        !error && <p role="status">Loading subjects…</p>
      ) : (
        <table>
          <caption>
            {subjects.length > SHOWN
              ? `The first ${SHOWN} of ${subjects.length}: the results CSV holds them all`
              : `${subjects.length} subject(s)`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Subject</th>
              <th scope="col">State</th>
              <th scope="col">Avatars</th>
              <th scope="col">Why it failed</th>
            </tr>
          </thead>
          <tbody>
            {subjects.slice(0, SHOWN).map((subject) => {
              const isRunning = subject.status === 'PENDING' && running.has(subject.subjectId);
              const started = subject.status !== 'PENDING' || isRunning;
              return (
                <tr key={subject.subjectId}>
                  <th scope="row" data-label="Subject" class="id">
                    {started && !readOnly ? (
                      <a href={href(['runs', subject.workflowId])}>{subject.subjectId}</a>
                    ) : (
                      subject.subjectId
                    )}
                  </th>
                  <td data-label="State">
                    <span class={`state ${isRunning ? 'running' : subject.status.toLowerCase()}`}>
                      {isRunning ? 'running' : STATUS_WORDS[subject.status]}
                    </span>
                  </td>
                  <td data-label="Avatars">{subject.avatarCount ?? ''}</td>
                  <td data-label="Why it failed">{subject.error ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { ForgetReport, PipelineListItem } from '../api-types';
import { PageHeading } from '../parts/page-heading';
import { href } from '../router';

/** Runs read for the list: the newest, as many as one page of the listing holds. */
const RUNS_READ = 1000;

interface KnownSubject {
  subjectId: string;
  runs: number;
  lastStartedAt: string;
}

/** The subjects the runs name, the one with the newest run first. */
function subjectsOf(runs: PipelineListItem[]): KnownSubject[] {
  const bySubject = new Map<string, KnownSubject>();
  for (const run of runs) {
    if (!run.subjectId) continue;
    const known = bySubject.get(run.subjectId);
    if (!known)
      bySubject.set(run.subjectId, { subjectId: run.subjectId, runs: 1, lastStartedAt: run.startedAt });
    else {
      known.runs += 1;
      if (Date.parse(run.startedAt) > Date.parse(known.lastStartedAt)) known.lastStartedAt = run.startedAt;
    }
  }
  return [...bySubject.values()].sort((a, b) => Date.parse(b.lastStartedAt) - Date.parse(a.lastStartedAt));
}

/**
 * The tenant's subjects (those its runs name, from the runs listing: the API keeps no register of
 * people apart from their runs), each with its runs; and erasure of a person after a confirmation
 * naming what goes, then the erasure report.
 */
export function SubjectsPage() {
  const [known, setKnown] = useState<{ subjects: KnownSubject[]; more: boolean } | undefined>();
  const [listError, setListError] = useState('');
  const [subject, setSubject] = useState('');
  const [runs, setRuns] = useState<PipelineListItem[] | undefined>();
  const [report, setReport] = useState<ForgetReport | undefined>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const id = subject.trim();

  const list = () =>
    callApi<{ pipelines: PipelineListItem[]; nextCursor?: string }>('GET', `/v1/pipelines?limit=${RUNS_READ}`)
      .then((answer) => {
        setKnown({ subjects: subjectsOf(answer.pipelines), more: answer.nextCursor !== undefined });
        setListError('');
      })
      .catch((err: unknown) => setListError(`The subjects could not be listed: ${messageOf(err)}`));
  useEffect(() => void list(), []);

  const ask = async (event: Event) => {
    event.preventDefault();
    setError('');
    setReport(undefined);
    if (id === '') return setError('Enter the subject to erase.');
    try {
      const search = new URLSearchParams({ subjectId: id, limit: '100' });
      const answer = await callApi<{ pipelines: PipelineListItem[] }>('GET', `/v1/pipelines?${search}`);
      setRuns(answer.pipelines);
      dialog.current?.showModal();
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const erase = async () => {
    setBusy(true);
    try {
      const answer = await callApi<ForgetReport>('DELETE', `/v1/subjects/${encodeURIComponent(id)}`);
      setReport(answer);
      dialog.current?.close();
      void list();
    } catch (err) {
      setError(messageOf(err));
      dialog.current?.close();
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeading title="Subjects">Subjects</PageHeading>
      <section aria-labelledby="subject-list-heading">
        <h2 id="subject-list-heading">Subjects of your runs</h2>
        {listError && <p class="field-error">{listError}</p>}
        {known === undefined ? (
          !listError && <p role="status">Loading subjects…</p>
        ) : known.subjects.length === 0 ? (
          <p>No run names a subject yet.</p>
        ) : (
          <table class="cards">
            <caption>
              {known.more
                ? `From your newest ${RUNS_READ} runs, the subject with the newest run first`
                : 'The subject with the newest run first'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Runs</th>
                <th scope="col">Last run started</th>
              </tr>
            </thead>
            <tbody>
              {known.subjects.map((s) => (
                <tr key={s.subjectId}>
                  <th scope="row" data-label="Subject" class="id">
                    {s.subjectId}
                  </th>
                  <td data-label="Runs">
                    <a href={href(['runs'], { subject: s.subjectId })}>
                      {s.runs} run{s.runs === 1 ? '' : 's'} of {s.subjectId}
                    </a>
                  </td>
                  <td data-label="Last run started">
                    <time dateTime={s.lastStartedAt}>{new Date(s.lastStartedAt).toLocaleString()}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <h2>Erase a subject</h2>
      <form onSubmit={ask} noValidate class="stack">
        <div>
          <label for="erase-subject">Subject</label>
          <input
            id="erase-subject"
            value={subject}
            onInput={(e) => setSubject(e.currentTarget.value)}
            aria-describedby={error ? 'erase-error' : undefined}
          />
          {error && (
            <p id="erase-error" class="field-error" role="alert">
              {error}
            </p>
          )}
        </div>
        <button type="submit">Erase subject…</button>
      </form>
      <dialog ref={dialog} aria-labelledby="confirm-heading" aria-describedby="confirm-text">
        <h2 id="confirm-heading">Erase {id}?</h2>
        <div id="confirm-text">
          <p>
            This deletes, for subject <strong>{id}</strong>: every stored selfie and archived avatar, the{' '}
            {runs?.length ?? 0} run(s) below (from Temporal, with their results), and their lines in stored
            campaign manifests. Running pipelines are cancelled first. The provider keeps its models and
            orders: it offers no way to delete them.
          </p>
          {runs && runs.length > 0 && (
            <ul>
              {runs.map((run) => (
                <li key={run.workflowId}>
                  {run.workflowId} ({run.state})
                </li>
              ))}
            </ul>
          )}
        </div>
        <div class="actions">
          <button type="button" class="danger" onClick={erase} disabled={busy}>
            Erase
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Keep
          </button>
        </div>
      </dialog>
      {report && (
        <section aria-labelledby="report-heading">
          <h2 id="report-heading">Erasure report for {id}</h2>
          <dl class="facts">
            <dt>Objects left in the store</dt>
            <dd>{report.storedObjects}</dd>
            <dt>Runs erased</dt>
            <dd>
              {report.runs.length === 0
                ? 'none'
                : report.runs.map((r) => `${r.workflowId} (${r.status})`).join(', ')}
            </dd>
            <dt>Webhook deliveries erased</dt>
            <dd>
              {report.webhookDeliveries} (redelivery runs: {report.webhookRedeliveries})
            </dd>
            <dt>Provider still holds models</dt>
            <dd>{report.providerHeld.modelIds.join(', ') || 'none'}</dd>
            <dt>Provider still holds orders</dt>
            <dd>{report.providerHeld.orderIds.join(', ') || 'none'}</dd>
          </dl>
        </section>
      )}
    </>
  );
}

import { useRef, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { ForgetReport, PipelineListItem } from '../api-types';
import { PageHeading } from '../parts/page-heading';

/** Erases a person after a confirmation naming what goes, then shows the erasure report. */
export function SubjectsPage() {
  const [subject, setSubject] = useState('');
  const [runs, setRuns] = useState<PipelineListItem[] | undefined>();
  const [report, setReport] = useState<ForgetReport | undefined>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const id = subject.trim();

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

import { useState } from 'preact/hooks';
import type { PipelineListItem } from '../api-types';
import { useLiveList } from '../live-list';
import { Alert } from '../parts/alert';
import { PageHeading } from '../parts/page-heading';
import { href, navigate } from '../router';

const STATES = ['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed-out'] as const;

/** The caller's runs, newest first, filtered by state and subject, live from the list's event stream. */
export function RunsPage({ query }: { query: URLSearchParams }) {
  const state = query.get('state') ?? '';
  const subject = query.get('subject') ?? '';
  const [subjectField, setSubjectField] = useState(subject);
  const [stateField, setStateField] = useState(state);
  const search = new URLSearchParams({ limit: '50' });
  if (state) search.set('status', state);
  if (subject) search.set('subjectId', subject);
  const { page, error } = useLiveList<{ pipelines: PipelineListItem[] }>(`/v1/pipelines?${search}`);
  const runs = page?.pipelines;

  const filter = (event: Event) => {
    event.preventDefault();
    navigate(['runs'], { state: stateField, subject: subjectField.trim() });
  };

  return (
    <>
      <PageHeading title="Runs">Runs</PageHeading>
      <form class="filters" onSubmit={filter} role="search" aria-label="Filter runs">
        <div>
          <label for="filter-state">State</label>
          <select id="filter-state" value={stateField} onChange={(e) => setStateField(e.currentTarget.value)}>
            <option value="">Any</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="filter-subject">Subject</label>
          <input
            id="filter-subject"
            value={subjectField}
            onInput={(e) => setSubjectField(e.currentTarget.value)}
          />
        </div>
        <button type="submit">Filter</button>
      </form>
      <Alert>{error}</Alert>
      {runs === undefined ? (
        <p role="status">Loading runs…</p>
      ) : runs.length === 0 ? (
        <p role="status">No runs{state || subject ? ' match these filters' : ' yet'}.</p>
      ) : (
        <table class="cards">
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Kind</th>
              <th scope="col">State</th>
              <th scope="col">Stage</th>
              <th scope="col">Subject</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.workflowId}>
                <td data-label="Run" class="id">
                  <a href={href(['runs', run.workflowId])}>{run.workflowId}</a>
                </td>
                <td data-label="Kind">{run.kind}</td>
                <td data-label="State">
                  <span class={`state ${run.state}`}>{run.state}</span>
                </td>
                <td data-label="Stage">{run.stage ?? ''}</td>
                <td data-label="Subject" class="id">
                  {run.subjectId ?? ''}
                </td>
                <td data-label="Started">
                  <time dateTime={run.startedAt}>{new Date(run.startedAt).toLocaleString()}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

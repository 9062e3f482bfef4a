import { useState } from 'preact/hooks';
import { ApiFailure, callApi, messageOf, type Issue } from '../api';
import type { CampaignStarted } from '../api-types';
import { navigate } from '../router';
import { Alert } from './alert';
import { FieldError } from './field-error';

interface InvalidRow {
  row: string;
  field: string;
  reason: string;
}

/** `manifest.3.gender` → row 3, field gender; other paths are problems of the request. */
function invalidRowsOf(issues: Issue[]): { rows: InvalidRow[]; other: Issue[] } {
  const rows: InvalidRow[] = [];
  const other: Issue[] = [];
  for (const issue of issues) {
    const match = /^manifest\.(\d+)(?:\.(.+))?$/.exec(issue.path);
    if (match) rows.push({ row: match[1]!, field: match[2] ?? '', reason: issue.message });
    else other.push(issue);
  }
  return { rows, other };
}

/** The form that starts a campaign from a manifest file, with the API's refusals by field and by row. */
export function StartCampaignForm() {
  const [file, setFile] = useState<File | undefined>();
  const [campaignId, setCampaignId] = useState('');
  const [maxInFlight, setMaxInFlight] = useState('auto');
  const [rows, setRows] = useState<InvalidRow[]>([]);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setRows([]);
    setFieldErrors({});
    setGeneral('');
    if (!file) return setFieldErrors({ manifest: ['choose a manifest file (CSV or JSONL)'] });
    const form = new FormData();
    form.append('manifest', file, file.name);
    if (campaignId.trim()) form.append('campaignId', campaignId.trim());
    if (maxInFlight.trim()) form.append('maxInFlight', maxInFlight.trim());
    setBusy(true);
    try {
      const started = await callApi<CampaignStarted>('POST', '/v1/campaigns', { body: form });
      navigate(['campaigns', started.campaignId]);
    } catch (err) {
      if (!(err instanceof ApiFailure)) return setGeneral(messageOf(err));
      const sorted = invalidRowsOf(err.issues);
      setRows(sorted.rows);
      const byField: Record<string, string[]> = {};
      const rest: string[] = [];
      for (const issue of sorted.other) {
        const field = issue.path.split('.')[0] ?? '';
        if (['manifest', 'campaignId', 'maxInFlight'].includes(field))
          (byField[field] ??= []).push(issue.message);
        else rest.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message);
      }
      setFieldErrors(byField);
      setGeneral(
        // The API's message says that nothing was started; the rows are listed below it.
        sorted.rows.length > 0 ? err.message : [err.message, ...rest].join(' '),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="start-heading">
      <h2 id="start-heading">Start a campaign</h2>
      <form onSubmit={submit} noValidate class="stack">
        <div>
          <label for="manifest">Manifest</label>
          <p class="hint" id="manifest-hint">
            CSV or JSONL, one subject per row: subjectId, gender, styles, selfies (absolute paths under the
            workers&apos; image roots) or modelId.
          </p>
          <input
            id="manifest"
            type="file"
            accept=".csv,.jsonl,.json,text/csv,application/json"
            onChange={(e) => setFile(e.currentTarget.files?.[0])}
            aria-invalid={fieldErrors.manifest || rows.length > 0 ? true : undefined}
            aria-describedby={fieldErrors.manifest ? 'manifest-error' : 'manifest-hint'}
          />
          <FieldError id="manifest-error" messages={fieldErrors.manifest} />
        </div>
        <div>
          <label for="campaign-id">Campaign id (optional)</label>
          <input
            id="campaign-id"
            value={campaignId}
            onInput={(e) => setCampaignId(e.currentTarget.value)}
            aria-invalid={fieldErrors.campaignId ? true : undefined}
            aria-describedby={fieldErrors.campaignId ? 'campaign-id-error' : undefined}
          />
          <FieldError id="campaign-id-error" messages={fieldErrors.campaignId} />
        </div>
        <div>
          <label for="max-in-flight">Subjects in flight at once</label>
          <input
            id="max-in-flight"
            value={maxInFlight}
            onInput={(e) => setMaxInFlight(e.currentTarget.value)}
            aria-invalid={fieldErrors.maxInFlight ? true : undefined}
            aria-describedby={fieldErrors.maxInFlight ? 'max-in-flight-error' : 'max-in-flight-hint'}
          />
          <p class="hint" id="max-in-flight-hint">
            auto (sized to the provider&apos;s quota) or a whole number
          </p>
          <FieldError id="max-in-flight-error" messages={fieldErrors.maxInFlight} />
        </div>
        <Alert>{general}</Alert>
        <button type="submit" disabled={busy}>
          Start campaign
        </button>
      </form>
      {rows.length > 0 && (
        <table class="cards">
          <caption>Invalid rows</caption>
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Field</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                <td data-label="Row">{row.row}</td>
                <td data-label="Field">{row.field}</td>
                <td data-label="Reason">{row.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

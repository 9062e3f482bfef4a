import { useRef, useState } from 'preact/hooks';
import { ApiFailure, callApi, messageOf } from '../api';
import type { RunStarted } from '../api-types';
import { Alert } from '../parts/alert';
import { issuesByField } from '../parts/field-error';
import { PageHeading } from '../parts/page-heading';
import { StyleChoices, useStyles } from '../parts/style-choices';
import { navigate } from '../router';

/**
 * Generates more styles under a trained model (POST /v1/models/{modelId}/generations), for the
 * subject of the run it was opened from (without one, the API takes the model's own subject).
 */
export function GeneratePage({ modelId, subjectId }: { modelId: number; subjectId?: string | undefined }) {
  const { styles, error: stylesError } = useStyles();
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const key = useRef(crypto.randomUUID());

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setGeneral('');
    try {
      const started = await callApi<RunStarted>('POST', `/v1/models/${modelId}/generations`, {
        body: { styles: [...chosen], ...(subjectId !== undefined ? { subjectId } : {}) },
        headers: { 'idempotency-key': key.current },
      });
      navigate(['runs', started.workflowId]);
    } catch (err) {
      key.current = crypto.randomUUID();
      if (err instanceof ApiFailure) {
        const sorted = issuesByField(err.issues, (path) =>
          path.startsWith('styles') ? 'styles' : undefined,
        );
        setErrors(sorted.byField);
        setGeneral(sorted.general.length > 0 || !sorted.byField.styles ? err.message : '');
      } else setGeneral(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeading title={`Generate with model ${modelId}`}>Generate with model {modelId}</PageHeading>
      {subjectId !== undefined && <p>For subject {subjectId}, as the run it was opened from.</p>}
      <Alert>{stylesError}</Alert>
      <form onSubmit={submit} noValidate class="stack">
        <StyleChoices styles={styles} chosen={chosen} onChange={setChosen} errors={errors.styles} />
        <Alert>{general}</Alert>
        <button type="submit" disabled={busy}>
          Start
        </button>
      </form>
    </>
  );
}

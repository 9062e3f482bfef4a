import { useRef, useState } from 'preact/hooks';
import { ApiFailure, callApi, messageOf } from '../api';
import type { RunStarted } from '../api-types';
import { Alert } from '../parts/alert';
import { FieldError, issuesByField } from '../parts/field-error';
import { PageHeading } from '../parts/page-heading';
import { localSelfieProblems, pixelProblems, SelfiePicker } from '../parts/selfie-picker';
import { StyleChoices, useStyles } from '../parts/style-choices';
import { navigate } from '../router';

type Field = 'selfies' | 'styles' | 'gender' | 'subject' | 'polling';

/** `selfies.1` → selfies, `styles` → styles, `subjectId` → subject; anything else is the request's. */
function fieldOf(path: string): Field | undefined {
  const head = path.split('.')[0] ?? '';
  if (head === 'selfies' || head === 'images' || head === 'mainImageIndex' || head === 'mainImage') {
    return 'selfies';
  }
  if (head === 'styles') return 'styles';
  if (head === 'gender') return 'gender';
  if (head === 'subjectId') return 'subject';
  if (head === 'polling') return 'polling';
  return undefined;
}

/** Starts a pipeline from uploaded selfies: the answer opens the run page. */
export function NewRunPage() {
  const { styles, error: stylesError } = useStyles();
  const [files, setFiles] = useState<File[]>([]);
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [gender, setGender] = useState('');
  const [subject, setSubject] = useState('');
  const [pollMs, setPollMs] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [general, setGeneral] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  // One key per filled-in form: sending it twice (a double click, a retry) starts one run.
  const idempotencyKey = useRef(crypto.randomUUID());

  const choose = (chosenFiles: File[]) => {
    setFiles(chosenFiles);
    idempotencyKey.current = crypto.randomUUID();
    const problems = localSelfieProblems(chosenFiles);
    setErrors((old) => ({ ...old, selfies: problems }));
    void pixelProblems(chosenFiles).then((more) => {
      if (more.length > 0) setErrors((old) => ({ ...old, selfies: [...(old.selfies ?? []), ...more] }));
    });
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setGeneral([]);
    const form = new FormData();
    for (const file of files) form.append('selfies', file, file.name);
    form.append('styles', [...chosen].join(','));
    if (gender) form.append('gender', gender);
    if (subject.trim()) form.append('subjectId', subject.trim());
    if (pollMs.trim()) {
      const ms = Number(pollMs);
      form.append(
        'polling',
        JSON.stringify({
          initialIntervalMs: ms,
          minIntervalMs: Math.min(ms, 1000),
          maxIntervalMs: Math.max(ms, 5000),
        }),
      );
    }
    // What the API would refuse anyway is named here without sending the selfies.
    const local: Record<string, string[]> = {};
    const selfieProblems = [...localSelfieProblems(files), ...(await pixelProblems(files))];
    if (selfieProblems.length > 0) local.selfies = selfieProblems;
    if (files.length === 0) local.selfies = ['choose at least one selfie'];
    if (Object.keys(local).length > 0) {
      setErrors(local);
      return;
    }
    setBusy(true);
    try {
      const started = await callApi<RunStarted>('POST', '/v1/pipelines', {
        body: form,
        headers: { 'idempotency-key': idempotencyKey.current },
      });
      navigate(['runs', started.workflowId]);
    } catch (err) {
      if (err instanceof ApiFailure) {
        const sorted = issuesByField(err.issues, fieldOf);
        setErrors(sorted.byField);
        setGeneral(
          sorted.general.length > 0 || Object.keys(sorted.byField).length === 0 ? [err.message] : [],
        );
      } else setGeneral([messageOf(err)]);
      idempotencyKey.current = crypto.randomUUID();
    } finally {
      setBusy(false);
    }
  };

  const described = (field: Field) => (errors[field] ? `${field}-error` : undefined);
  // A field's messages go once it is changed: they were about what it held before.
  const edited =
    <T,>(field: Field, set: (value: T) => void) =>
    (value: T) => {
      set(value);
      if (errors[field]) setErrors(({ [field]: _gone, ...rest }) => rest);
    };

  return (
    <>
      <PageHeading title="New run">New run</PageHeading>
      <Alert>{stylesError}</Alert>
      <form onSubmit={submit} noValidate class="stack">
        <SelfiePicker files={files} onChoose={choose} errors={errors.selfies} />
        <StyleChoices
          styles={styles}
          chosen={chosen}
          onChange={edited('styles', setChosen)}
          errors={errors.styles}
        />
        <GenderChoice gender={gender} onChange={edited('gender', setGender)} errors={errors.gender} />
        <div>
          <label for="subject">Subject (optional)</label>
          <input
            id="subject"
            value={subject}
            onInput={(e) => edited('subject', setSubject)(e.currentTarget.value)}
            aria-invalid={errors.subject ? true : undefined}
            aria-describedby={described('subject')}
          />
          <FieldError id="subject-error" messages={errors.subject} />
        </div>
        <details>
          <summary>Advanced</summary>
          <label for="poll-ms">Poll the provider every (milliseconds)</label>
          <input
            id="poll-ms"
            inputMode="numeric"
            value={pollMs}
            onInput={(e) => edited('polling', setPollMs)(e.currentTarget.value)}
            aria-invalid={errors.polling ? true : undefined}
            aria-describedby={described('polling')}
          />
          <FieldError id="polling-error" messages={errors.polling} />
        </details>
        {general.length > 0 && <Alert>{general.join(' ')}</Alert>}
        <button type="submit" disabled={busy}>
          Start
        </button>
      </form>
    </>
  );
}

/** Woman or man, as the provider's models are trained. */
function GenderChoice({
  gender,
  onChange,
  errors,
}: {
  gender: string;
  onChange: (gender: string) => void;
  errors: string[] | undefined;
}) {
  return (
    <fieldset aria-describedby={errors ? 'gender-error' : undefined} aria-invalid={errors ? true : undefined}>
      <legend>Gender</legend>
      <ul class="choices">
        {[
          ['1', 'Woman'],
          ['2', 'Man'],
        ].map(([value, label]) => (
          <li key={value}>
            <input
              type="radio"
              name="gender"
              id={`gender-${value}`}
              value={value}
              checked={gender === value}
              onChange={() => onChange(value!)}
            />
            <label for={`gender-${value}`}>{label}</label>
          </li>
        ))}
      </ul>
      <FieldError id="gender-error" messages={errors} />
    </fieldset>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import { MAX_SELFIES } from '@avatar-pipeline/client/contracts/limits';
import { MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE } from '@avatar-pipeline/client/images/image-dimensions';
import { ApiFailure, callApi, messageOf } from '../api';
import type { RunStarted } from '../api-types';
import { Alert } from '../parts/alert';
import { FieldError, issuesByField } from '../parts/field-error';
import { PageHeading } from '../parts/page-heading';
import { StyleChoices, useStyles } from '../parts/style-choices';
import { navigate } from '../router';

/** The API's own bounds (POST /v1/pipelines) are checked here first, so a mistake shows before uploading. */
const SELFIE_TYPES = ['image/jpeg', 'image/png'];

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
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  // One key per filled-in form: sending it twice (a double click, a retry) starts one run.
  const idempotencyKey = useRef(crypto.randomUUID());

  const previews = usePreviews(files);

  const choose = (list: FileList | null) => {
    const chosenFiles = Array.from(list ?? []);
    setFiles(chosenFiles);
    idempotencyKey.current = crypto.randomUUID();
    const problems = localSelfieProblems(chosenFiles);
    setErrors((old) => ({ ...old, selfies: problems }));
    void pixelProblems(chosenFiles).then((more) => {
      if (more.length > 0) setErrors((old) => ({ ...old, selfies: [...(old.selfies ?? []), ...more] }));
    });
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const dropped = event.dataTransfer?.files;
    if (!dropped || !input.current) return;
    input.current.files = dropped;
    choose(dropped);
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

  return (
    <>
      <PageHeading title="New run">New run</PageHeading>
      <Alert>{stylesError}</Alert>
      <form onSubmit={submit} noValidate class="stack">
        <div
          class={`drop-zone${dragging ? ' dragging' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={drop}
        >
          <label for="selfies">Selfies</label>
          <p class="hint" id="selfies-hint">
            JPEG or PNG, up to {MAX_SELFIES}. Choose files or drop them here.
          </p>
          <input
            ref={input}
            id="selfies"
            type="file"
            multiple
            accept={SELFIE_TYPES.join(',')}
            onChange={(e) => choose(e.currentTarget.files)}
            aria-invalid={errors.selfies ? true : undefined}
            aria-describedby={described('selfies') ?? 'selfies-hint'}
          />
          <FieldError id="selfies-error" messages={errors.selfies} />
          {previews.length > 0 && (
            <ul class="previews" aria-label="Previews">
              {previews.map((preview) => (
                <li key={preview.url}>
                  <img src={preview.url} alt={`Preview of ${preview.name}`} width={96} height={96} />
                </li>
              ))}
            </ul>
          )}
        </div>
        <StyleChoices styles={styles} chosen={chosen} onChange={setChosen} errors={errors.styles} />
        <fieldset aria-describedby={described('gender')} aria-invalid={errors.gender ? true : undefined}>
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
                  onChange={() => setGender(value!)}
                />
                <label for={`gender-${value}`}>{label}</label>
              </li>
            ))}
          </ul>
          <FieldError id="gender-error" messages={errors.gender} />
        </fieldset>
        <div>
          <label for="subject">Subject (optional)</label>
          <input
            id="subject"
            value={subject}
            onInput={(e) => setSubject(e.currentTarget.value)}
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
            onInput={(e) => setPollMs(e.currentTarget.value)}
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

function localSelfieProblems(files: File[]): string[] {
  const problems: string[] = [];
  if (files.length > MAX_SELFIES) problems.push(`at most ${MAX_SELFIES} selfies, not ${files.length}`);
  for (const file of files) {
    if (file.type && !SELFIE_TYPES.includes(file.type))
      problems.push(`${file.name} is not a JPEG or PNG image`);
  }
  return problems;
}

/** Selfies larger than the API decodes (by side or by pixels), named; unreadable ones are left to the API. */
async function pixelProblems(files: File[]): Promise<string[]> {
  const problems: string[] = [];
  for (const file of files) {
    const url = URL.createObjectURL(file);
    try {
      const image = new Image();
      image.src = url;
      await image.decode();
      const { naturalWidth: width, naturalHeight: height } = image;
      if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS) {
        problems.push(
          `${file.name} is ${width} × ${height} pixels: at most ${MAX_IMAGE_SIDE} a side and ${MAX_IMAGE_PIXELS / 1e6} megapixels`,
        );
      }
    } catch {
      // Not decodable here: the API checks the content and names the file.
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  return problems;
}

/** Object URLs of the chosen files for previews, revoked when the choice changes. */
function usePreviews(files: File[]): Array<{ name: string; url: string }> {
  const [previews, setPreviews] = useState<Array<{ name: string; url: string }>>([]);
  useEffect(() => {
    const made = files.map((file) => ({ name: file.name, url: URL.createObjectURL(file) }));
    setPreviews(made);
    return () => made.forEach((preview) => URL.revokeObjectURL(preview.url));
  }, [files]);
  return previews;
}

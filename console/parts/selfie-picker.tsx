import { useEffect, useRef, useState } from 'preact/hooks';
import { MAX_SELFIES } from '@avatar-pipeline/client/contracts/limits';
import { MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE } from '@avatar-pipeline/client/images/image-dimensions';
import { FieldError } from './field-error';

/** The API's own bounds (POST /v1/pipelines) are checked here first, so a mistake shows before uploading. */
const SELFIE_TYPES = ['image/jpeg', 'image/png'];

/** Choosing selfies: a file input that is also a drop zone, with a preview of each file chosen. */
export function SelfiePicker({
  files,
  onChoose,
  errors,
}: {
  files: File[];
  onChoose: (files: File[]) => void;
  errors: string[] | undefined;
}) {
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const previews = usePreviews(files);

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const dropped = event.dataTransfer?.files;
    if (!dropped || !input.current) return;
    input.current.files = dropped;
    onChoose(Array.from(dropped));
  };

  return (
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
        onChange={(e) => onChoose(Array.from(e.currentTarget.files ?? []))}
        aria-invalid={errors ? true : undefined}
        aria-describedby={errors ? 'selfies-error' : 'selfies-hint'}
      />
      <FieldError id="selfies-error" messages={errors} />
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
  );
}

/** Too many selfies, or files that are not JPEG or PNG, named. */
export function localSelfieProblems(files: File[]): string[] {
  const problems: string[] = [];
  if (files.length > MAX_SELFIES) problems.push(`at most ${MAX_SELFIES} selfies, not ${files.length}`);
  for (const file of files) {
    if (file.type && !SELFIE_TYPES.includes(file.type))
      problems.push(`${file.name} is not a JPEG or PNG image`);
  }
  return problems;
}

/** Selfies larger than the API decodes (by side or by pixels), named; unreadable ones are left to the API. */
export async function pixelProblems(files: File[]): Promise<string[]> {
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

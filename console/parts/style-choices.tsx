import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { Styles } from '../api-types';
import { FieldError } from './field-error';

export type Style = Styles['styles'][number];

const STYLES_KEY = 'avatar-console.styles';

/**
 * The provider's styles (GET /v1/styles), asked once per page. The last answer is kept for the
 * tab, so archived avatars keep their style names while the provider cannot be asked.
 */
export function useStyles(
  /** False with a shared run link: its token opens the run's status and events only, and styles are named by id. */
  ask = true,
): { styles: Style[] | undefined; error: string } {
  const [styles, setStyles] = useState<Style[] | undefined>(keptStyles);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!ask) return;
    callApi<Styles>('GET', '/v1/styles')
      .then((answer) => {
        setStyles(answer.styles);
        sessionStorage.setItem(STYLES_KEY, JSON.stringify(answer.styles));
      })
      .catch((err: unknown) => setError(`The styles could not be loaded: ${messageOf(err)}`));
  }, [ask]);
  return { styles, error };
}

/**
 * The names of a run's styles: the status answer names them (a shared or review link's token reads
 * nothing else); a signed-in tab falls back on the catalogue while the provider cannot be asked.
 */
export function useRunStyles(
  status: { styleNames?: Style[] } | undefined,
  signedIn: boolean,
): Style[] | undefined {
  const { styles } = useStyles(signedIn);
  return status?.styleNames ?? styles;
}

function keptStyles(): Style[] | undefined {
  try {
    const kept: unknown = JSON.parse(sessionStorage.getItem(STYLES_KEY) ?? 'null');
    return Array.isArray(kept) ? (kept as Style[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The styles as labelled checkboxes named by the provider; `errors` are the API's words about them. */
export function StyleChoices(props: {
  styles: Style[] | undefined;
  chosen: Set<number>;
  onChange: (chosen: Set<number>) => void;
  errors: string[] | undefined;
}) {
  const { styles, chosen, onChange, errors } = props;
  const toggle = (id: number, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    onChange(next);
  };
  return (
    <fieldset aria-describedby={errors ? 'styles-error' : undefined} aria-invalid={errors ? true : undefined}>
      <legend>Styles</legend>
      {styles === undefined ? (
        <p role="status">Loading styles…</p>
      ) : (
        <ul class="choices">
          {styles.map((style) => (
            <li key={style.id}>
              <input
                type="checkbox"
                id={`style-${style.id}`}
                checked={chosen.has(style.id)}
                onChange={(e) => toggle(style.id, e.currentTarget.checked)}
              />
              <label for={`style-${style.id}`}>{style.name}</label>
            </li>
          ))}
        </ul>
      )}
      <FieldError id="styles-error" messages={errors} />
    </fieldset>
  );
}

/** Style names by id, for labels of bars and images. */
export function styleName(styles: Style[] | undefined, id: number): string {
  return styles?.find((style) => style.id === id)?.name ?? `Style ${id}`;
}

import { styleView, trainingView, type PartView } from '@avatar-pipeline/client/views/progress-states';
import type { PipelineProgress } from '../api-types';
import { styleName, type Style } from './style-choices';

/** What a bar says beside it once its part has ended or while it waits. */
const STATE_WORDS: Partial<Record<PartView['state'], string>> = {
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  waiting: 'waiting',
};

/** Training and one bar per style, each a native progress element named after what it measures. */
export function ProgressBars({
  progress,
  styles,
}: {
  progress: PipelineProgress;
  styles: Style[] | undefined;
}) {
  const training = trainingView(progress);
  return (
    <section aria-labelledby="progress-heading">
      <h2 id="progress-heading">Progress</h2>
      <ul class="bars">
        {progress.uploads.total > 0 && (
          <Bar
            id="bar-uploads"
            label="Selfies uploaded"
            view={{
              state: progress.uploads.done === progress.uploads.total ? 'done' : 'active',
              fraction: progress.uploads.done / progress.uploads.total,
            }}
          >
            {progress.uploads.done} of {progress.uploads.total}
          </Bar>
        )}
        <Bar id="bar-training" label="Training" view={training}>
          {STATE_WORDS[training.state] ?? progress.training.providerStatus ?? progress.stage}
        </Bar>
        {progress.styles.map((style) => (
          <Bar
            key={style.styleId}
            id={`bar-style-${style.styleId}`}
            label={styleName(styles, style.styleId)}
            view={styleView(style)}
          >
            {style.stage}
            {style.avatarCount !== undefined ? `, ${style.avatarCount} avatars` : ''}
            {style.error ? `: ${style.error}` : ''}
          </Bar>
        ))}
      </ul>
    </section>
  );
}

/** A determinate bar always (an indeterminate one animates as if work were under way), coloured by state. */
function Bar(props: { id: string; label: string; view: PartView; children: preact.ComponentChildren }) {
  const percent = Math.round(props.view.fraction * 100);
  return (
    <li class={`bar ${props.view.state}`}>
      <span id={props.id}>{props.label}</span>
      <progress aria-labelledby={props.id} max={100} value={percent}>
        {`${percent}%`}
      </progress>
      <span class="bar-text">{props.children}</span>
    </li>
  );
}

import type { PipelineProgress } from '../api-types';
import { styleName, type Style } from './style-choices';

const AFTER_TRAINING = new Set(['generating', 'awaiting-review', 'done']);

/** Training and one bar per style, each a native progress element named after what it measures. */
export function ProgressBars({
  progress,
  styles,
}: {
  progress: PipelineProgress;
  styles: Style[] | undefined;
}) {
  const trained =
    AFTER_TRAINING.has(progress.stage) ||
    (progress.modelId !== undefined && progress.styles.some((s) => s.stage !== 'pending'));
  const trainingValue = trained ? 100 : progress.training.progress;
  return (
    <section aria-labelledby="progress-heading">
      <h2 id="progress-heading">Progress</h2>
      <ul class="bars">
        {progress.uploads.total > 0 && (
          <Bar
            id="bar-uploads"
            label="Selfies uploaded"
            value={(100 * progress.uploads.done) / progress.uploads.total}
          >
            {progress.uploads.done} of {progress.uploads.total}
          </Bar>
        )}
        <Bar id="bar-training" label="Training" value={trainingValue}>
          {trained ? 'done' : (progress.training.providerStatus ?? progress.stage)}
        </Bar>
        {progress.styles.map((style) => (
          <Bar
            key={style.styleId}
            id={`bar-style-${style.styleId}`}
            label={styleName(styles, style.styleId)}
            value={style.stage === 'done' ? 100 : style.progress}
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

function Bar(props: {
  id: string;
  label: string;
  value: number | undefined;
  children: preact.ComponentChildren;
}) {
  return (
    <li>
      <span id={props.id}>{props.label}</span>
      <progress aria-labelledby={props.id} max={100} value={props.value}>
        {props.value === undefined ? '' : `${Math.round(props.value)}%`}
      </progress>
      <span class="bar-text">{props.children}</span>
    </li>
  );
}

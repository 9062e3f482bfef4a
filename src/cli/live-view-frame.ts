import type { PipelineProgress, StyleProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import { styleView, trainingView } from '@avatar-pipeline/client/views/progress-states';

export interface FrameOptions {
  workflowId: string;
  elapsedMs: number;
  /** Style names by id, when known (shown beside the id). */
  styleNames?: ReadonlyMap<number, string>;
  /** Cells of each progress bar. */
  barWidth?: number;
}

const FULL = '█';
const EMPTY = '░';

/** `[████░░░░]` for a fraction from 0 to 1. */
export function progressBar(fraction: number, width: number): string {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const filled = Math.round(clamped * width);
  return `[${FULL.repeat(filled)}${EMPTY.repeat(width - filled)}]`;
}

function seconds(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

function percent(value: number | undefined): string {
  return value === undefined ? '' : `${Math.round(value)}%`;
}

function trainingNote(p: PipelineProgress): string {
  const { state } = trainingView(p);
  if (state === 'done') return 'trained';
  if (state !== 'active') return state;
  const status = p.training.providerStatus ?? 'starting';
  return [percent(p.training.progress), status].filter(Boolean).join(' ');
}

function styleNote(s: StyleProgress): string {
  // The avatar checks ordered the style again: say which order this is.
  const again = s.attempt !== undefined && s.attempt > 1 ? ` (order ${s.attempt})` : '';
  switch (s.stage) {
    case 'done':
      return `✓ ${s.avatarCount ?? 0} avatars${checkedNote(s)}${again}`;
    case 'failed':
      return `✗ failed${s.error ? `: ${s.error}` : ''}${again}`;
    case 'polling':
      return [percent(s.progress), s.providerStatus ?? 'running'].filter(Boolean).join(' ') + again;
    case 'checking':
      return `checking avatars${again}`;
    default:
      return s.stage + again;
  }
}

/** How many of a done style's avatars passed their checks, when they were checked. */
function checkedNote(s: StyleProgress): string {
  const checked = (s.avatars ?? []).filter((a) => a.check !== undefined);
  if (checked.length === 0) return '';
  const passed = checked.filter((a) => a.check?.passed).length;
  return passed === checked.length ? ', checked' : `, ${checked.length - passed} failed their checks`;
}

/**
 * The lines of the live view for one progress snapshot: a header with the stage and time,
 * selfies, a training bar, one bar per style and the avatar count. Pure, so it can be tested.
 */
export function renderFrame(p: PipelineProgress | undefined, options: FrameOptions): string[] {
  const width = options.barWidth ?? 24;
  const header = `${options.workflowId}  ·  ${p?.stage ?? 'starting'}  ·  ${seconds(options.elapsedMs)}`;
  if (p === undefined) return [header, '  waiting for a worker to pick the pipeline up…'];
  const styleLabels = p.styles.map((s) => {
    const name = options.styleNames?.get(s.styleId);
    return `style ${s.styleId}${name ? ` ${name}` : ''}`;
  });
  // One column of labels, so every bar starts at the same place.
  const labelWidth = Math.max('training'.length, ...styleLabels.map((l) => l.length));
  const row = (label: string, content: string): string => `  ${label.padEnd(labelWidth)}  ${content}`;
  const model = p.modelId === undefined ? '' : `   model ${p.modelId}`;
  const lines = [header];
  lines.push(row('selfies', `${p.uploads.done}/${p.uploads.total} uploaded${model}`));
  lines.push(row('training', `${progressBar(trainingView(p).fraction, width)} ${trainingNote(p)}`));
  p.styles.forEach((s, i) => {
    lines.push(row(styleLabels[i] ?? '', `${progressBar(styleView(s).fraction, width)} ${styleNote(s)}`));
  });
  const avatars = p.styles.reduce((sum, s) => sum + (s.avatarCount ?? 0), 0);
  const finished = p.styles.filter((s) => s.stage === 'done').length;
  lines.push(row('avatars', `${avatars} collected, ${finished}/${p.styles.length} styles done`));
  if (p.error) lines.push(row('error', p.error));
  return lines;
}

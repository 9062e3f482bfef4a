/**
 * What a run's progress means to someone watching it, in one place for every view (the console's
 * bars, the CLI's live frame): whether a part of the run is waiting, under way, done, failed or
 * cancelled, and how full its bar is. A bar is full only for what is really done: a failed style
 * is drawn empty (none of its avatars came), a training cut off by a cancel stops where it was and
 * is not "done", and a part that is only waiting shows an empty bar, not a busy one.
 */
import type { PipelineProgress, StyleProgress } from '../contracts/pipeline-state';

export type PartState = 'waiting' | 'active' | 'done' | 'failed' | 'cancelled';

export interface PartView {
  state: PartState;
  /** How full its bar is, from 0 to 1. */
  fraction: number;
}

const PAST_TRAINING = new Set<PipelineProgress['stage']>(['generating', 'awaiting-review', 'done']);

/**
 * The model's training: done once the provider said so, or once the run went past it; a run under
 * a model trained before (no uploads of its own) has nothing left to train.
 */
export function trainingView(
  p: Pick<PipelineProgress, 'stage' | 'uploads' | 'training' | 'modelId'>,
): PartView {
  const trained =
    p.training.providerStatus === 'DONE' ||
    PAST_TRAINING.has(p.stage) ||
    (p.uploads.total === 0 && p.modelId !== undefined);
  if (trained) return { state: 'done', fraction: 1 };
  const sofar = (p.training.progress ?? 0) / 100;
  if (p.stage === 'failed') return { state: 'failed', fraction: sofar };
  if (p.stage === 'cancelled') return { state: 'cancelled', fraction: sofar };
  if (p.stage === 'training') return { state: 'active', fraction: sofar };
  return { state: 'waiting', fraction: 0 };
}

/** One style: full once its avatars are in, the provider's figure while it is generated. */
export function styleView(s: Pick<StyleProgress, 'stage' | 'progress'>): PartView {
  const sofar = (s.progress ?? 0) / 100;
  switch (s.stage) {
    case 'done':
      return { state: 'done', fraction: 1 };
    // No avatars came of it, whatever the provider's figure had reached (it reports 100 with an error too).
    case 'failed':
      return { state: 'failed', fraction: 0 };
    case 'cancelled':
      return { state: 'cancelled', fraction: 0 };
    case 'collecting':
    case 'checking':
      return { state: 'active', fraction: 1 };
    case 'polling':
      return { state: 'active', fraction: sofar };
    case 'creating-order':
    case 'running':
      return { state: 'active', fraction: 0 };
    case 'pending':
      return { state: 'waiting', fraction: 0 };
  }
}

/**
 * The word for a run as a whole: its state, except that a completed run some of whose styles
 * failed is `partial` (the API's result says PARTIAL).
 */
export function runStateWord(state: string, resultStatus: string | undefined): string {
  return state === 'completed' && resultStatus === 'PARTIAL' ? 'partial' : state;
}

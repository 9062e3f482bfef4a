import type { WindowReason } from '../contracts/campaign/window-state';

/** Why a campaign's window has its size, in words for people (the reasons are the controller's names). */
export const WINDOW_REASON_WORDS: Record<WindowReason, string> = {
  starting: 'starting at its first size',
  growing: 'growing: the provider keeps up',
  holding: 'holding steady',
  'not-full': 'not full: fewer subjects are ready than it holds',
  backlog: 'smaller: provider requests wait too long',
  'rate-limited': 'smaller: the provider answered "too many requests"',
  'provider-errors': 'smaller: the provider answers with errors',
  'workers-busy': 'holding: the workers are busy',
  'last-subjects': 'the last subjects are running',
  'at-cap': 'at its cap',
  'worker-capacity': 'at what the workers can hold',
};

/** "10 at once, sized automatically: growing: the provider keeps up"; a reason it does not know is kept as it came. */
export function windowWords(window: { size: number; mode: string; reason: string }): string {
  const how = window.mode === 'auto' ? 'sized automatically' : 'fixed';
  return `${window.size} at once, ${how}: ${WINDOW_REASON_WORDS[window.reason as WindowReason] ?? window.reason}`;
}

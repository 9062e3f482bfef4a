/**
 * Order statuses. The contract names five; the real service also sends lower-case words and
 * synonyms, and may send values nobody has seen yet. Known spellings are folded onto the
 * contract's names; anything else is kept exactly as it came and counts as "not finished".
 */
export const KNOWN_STATUSES = ['CREATED', 'STARTED', 'IN_PROGRESS', 'DONE', 'ERROR'] as const;
export type KnownStatus = (typeof KNOWN_STATUSES)[number];
/** A contract status, or an unrecognised one preserved verbatim. */
export type OrderStatus = KnownStatus | (string & {});

const SYNONYMS: Readonly<Record<string, KnownStatus>> = {
  created: 'CREATED',
  // "pending" is read as "not yet started": re-running a pending order is refused by the
  // provider at worst, whereas treating it as started could leave an order never run.
  pending: 'CREATED',
  started: 'STARTED',
  queued: 'STARTED',
  running: 'IN_PROGRESS',
  in_progress: 'IN_PROGRESS',
  'in-progress': 'IN_PROGRESS',
  processing: 'IN_PROGRESS',
  training: 'IN_PROGRESS',
  done: 'DONE',
  completed: 'DONE',
  complete: 'DONE',
  finished: 'DONE',
  success: 'DONE',
  succeeded: 'DONE',
  error: 'ERROR',
  failed: 'ERROR',
  failure: 'ERROR',
};

export function normalizeStatus(raw: string): OrderStatus {
  return SYNONYMS[raw.trim().toLowerCase()] ?? raw;
}

export function isTerminalStatus(status: OrderStatus): status is 'DONE' | 'ERROR' {
  return status === 'DONE' || status === 'ERROR';
}

/** True once the provider has accepted a run (anything but CREATED counts as started). */
export function hasStarted(status: OrderStatus): boolean {
  return status !== 'CREATED';
}

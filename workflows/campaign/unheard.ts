import { condition, log, proxyActivities, sleep } from '@temporalio/workflow';
import type { CampaignActivities } from '../../activities/campaign-activities';
import type { ManifestRef, SubjectOutcome } from '@avatar-pipeline/client/contracts/campaign/campaign-state';

const { findClosedChildren } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  // A check that cannot be made is skipped; the next one will do.
  retry: { maximumAttempts: 3, initialInterval: '5 seconds' },
});

/** A subject running now: its child workflow id, subject id and when the campaign last heard of it. */
export interface RunningChild {
  workflowId: string;
  subjectId: string;
  /** When it was started (or handed over by the previous run), or last found still open. */
  heardAtMs: number;
}

export interface UnheardWatch {
  campaignId: string;
  manifest: ManifestRef;
  /** How long a child may go unheard before it is looked up. */
  everyMs: number;
  running: ReadonlyMap<number, RunningChild>;
  /** True while a child's start is still pending (it cannot be looked up yet). */
  starting: (index: number) => boolean;
  stopped: () => boolean;
  ended: (index: number, outcome: SubjectOutcome) => void;
}

/**
 * Children report their end by a signal (report.ts); one that is terminated, times out,
 * or whose report is otherwise lost never does, and the campaign would wait for it forever. So
 * whenever some child has gone unheard for `everyMs`, one activity asks Temporal which of those
 * have closed, and each closed one is recorded with the outcome its close implies (terminated →
 * failed, "terminated: …"). Nothing is scheduled while every child is younger than that: a
 * campaign of quick subjects adds nothing to its history.
 */
export async function watchUnheardChildren(watch: UnheardWatch): Promise<void> {
  const { running, everyMs } = watch;
  if (!(everyMs > 0))
    throw new Error(`childCheckMs must be a positive number of milliseconds, not ${everyMs}`);
  // Checks are at least everyMs apart, however the children's ages are spread.
  let lastCheckMs = -Infinity;
  for (;;) {
    await condition(() => watch.stopped() || running.size > 0);
    if (watch.stopped()) return;
    let oldest = Infinity;
    for (const child of running.values()) oldest = Math.min(oldest, child.heardAtMs);
    const wait = Math.max(oldest, lastCheckMs) + everyMs - Date.now();
    if (wait > 0) {
      await sleep(wait);
      continue;
    }
    const now = Date.now();
    lastCheckMs = now;
    const asked = [...running.entries()].filter(
      ([index, child]) => now - child.heardAtMs >= everyMs && !watch.starting(index),
    );
    if (asked.length === 0) continue;
    for (const [, child] of asked) child.heardAtMs = now;
    let closed: Awaited<ReturnType<typeof findClosedChildren>> = [];
    try {
      closed = await findClosedChildren.executeWithOptions(
        { summary: `look up ${asked.length} pipeline(s) not heard of for ${Math.round(everyMs / 1000)} s` },
        [{ campaignId: watch.campaignId, manifest: watch.manifest, indexes: asked.map(([index]) => index) }],
      );
    } catch (err) {
      log.warn('could not look up unheard pipelines; trying again later', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
    const askedChild = new Map(asked);
    for (const { index, outcome } of closed) {
      // Only the same start: a child that reported meanwhile (and was perhaps retried) is not touched.
      if (running.get(index) === askedChild.get(index)) watch.ended(index, outcome);
    }
  }
}

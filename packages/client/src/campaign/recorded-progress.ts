/**
 * The progress a campaign keeps in its memo (CAMPAIGN_PROGRESS_MEMO), as a status read finds it
 * through describe: checked for shape (the campaign workflow wrote it) and aged to the moment of
 * the read.
 */
import type { CampaignProgress, ManifestRef } from '../contracts/campaign/campaign';

/** The memo's progress, when it is one (written by the campaign workflow, so only its shape is checked). */
export function recordedProgress(value: unknown): CampaignProgress | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const p = value as Partial<CampaignProgress>;
  const shaped =
    typeof p.campaignId === 'string' &&
    typeof p.state === 'string' &&
    typeof p.startedAt === 'string' &&
    typeof p.elapsedMs === 'number' &&
    typeof p.counts === 'object' &&
    Array.isArray(p.inFlight) &&
    Array.isArray(p.recentFailures);
  return shaped ? (value as CampaignProgress) : undefined;
}

/** The start memo's copy of the stored manifest's reference. */
export function manifestRefOf(value: unknown): ManifestRef | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const ref = value as Partial<ManifestRef>;
  return typeof ref.key === 'string' && typeof ref.sha256 === 'string' && typeof ref.total === 'number'
    ? (value as ManifestRef)
    : undefined;
}

/**
 * A snapshot read some time after the campaign recorded it (at its last change): the elapsed time
 * runs on while the campaign has not ended, and a running campaign's estimate counts down.
 */
export function aged(progress: CampaignProgress, nowMs: number): CampaignProgress {
  if (progress.state === 'completed' || progress.state === 'cancelled') return progress;
  const age = Math.max(0, nowMs - (Date.parse(progress.startedAt) + progress.elapsedMs));
  return {
    ...progress,
    elapsedMs: progress.elapsedMs + age,
    ...(progress.etaMs !== undefined && progress.state === 'running'
      ? { etaMs: Math.max(0, progress.etaMs - age) }
      : {}),
  };
}

import { aged, manifestRefOf, recordedProgress } from '@avatar-pipeline/client/campaign/recorded-progress';
import type { CampaignProgress } from '@avatar-pipeline/client/contracts/campaign/campaign';

const startedAt = '2026-11-28T08:00:00.000Z';
const recordedAt = Date.parse(startedAt) + 600_000;

const snapshot = (over: Partial<CampaignProgress> = {}): CampaignProgress => ({
  campaignId: 'acme.campaign-20261128-0800-5f2c1a',
  state: 'running',
  total: 10_000,
  counts: { pending: 7_000, running: 200, done: 2_700, partial: 50, failed: 50, cancelled: 0 },
  maxInFlight: 1_000,
  window: { mode: 'auto', size: 200, cap: 1_000, reason: 'quota', detail: 'R × T / K' },
  inFlight: ['subject-000201'],
  run: 8,
  startedAt,
  elapsedMs: 600_000,
  throughputPerMinute: 280,
  etaMs: 1_500_000,
  recentFailures: [{ subjectId: 'subject-000017', error: 'style 19: could not be rendered' }],
  ...over,
});

describe('the progress a campaign keeps in its memo', () => {
  test('a running campaign read 30 s after it recorded: elapsed runs on, the estimate counts down', () => {
    const read = aged(snapshot(), recordedAt + 30_000);
    expect(read.elapsedMs).toBe(630_000);
    expect(read.etaMs).toBe(1_470_000);
    expect(read.counts).toEqual(snapshot().counts);
  });

  test('the estimate stops at zero; a reader whose clock is behind the server sees the snapshot as is', () => {
    expect(aged(snapshot({ etaMs: 10_000 }), recordedAt + 60_000).etaMs).toBe(0);
    expect(aged(snapshot(), recordedAt - 5_000)).toEqual(snapshot());
  });

  test('a paused campaign keeps its estimate; an ended one is not aged at all', () => {
    const paused = aged(snapshot({ state: 'paused' }), recordedAt + 30_000);
    expect([paused.elapsedMs, paused.etaMs]).toEqual([630_000, 1_500_000]);
    for (const state of ['completed', 'cancelled'] as const)
      expect(aged(snapshot({ state }), recordedAt + 30_000)).toEqual(snapshot({ state }));
  });

  test('only a value shaped as progress is taken; the manifest reference likewise', () => {
    expect(recordedProgress(snapshot())).toEqual(snapshot());
    expect(recordedProgress(undefined)).toBeUndefined();
    expect(recordedProgress({ state: 'running' })).toBeUndefined();
    expect(recordedProgress('running')).toBeUndefined();
    const ref = {
      key: 'campaigns/acme.c1-0123456789ab/manifest.json',
      sha256: 'ab'.repeat(32),
      total: 10_000,
    };
    expect(manifestRefOf(ref)).toEqual(ref);
    expect(manifestRefOf({ key: ref.key })).toBeUndefined();
    // A reference of the release that kept manifests in a folder is not one of the blob store.
    expect(
      manifestRefOf({ path: '/var/lib/avatar/campaigns/acme.c1.jsonl', sha256: ref.sha256, total: 1 }),
    ).toBeUndefined();
    expect(manifestRefOf(null)).toBeUndefined();
  });
});

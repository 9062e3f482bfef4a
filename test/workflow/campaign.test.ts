import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { setTimeout as delay } from 'node:timers/promises';
import type { CampaignHandle } from '@avatar-pipeline/client/campaign/campaigns';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { CampaignRig, FAST_POLLING, progressUntil, subjects } from '../helpers/campaign-rig';
import { writeSelfies } from '../helpers/selfie-files';
import { createDevServerEnv, makeScratchDir } from '../helpers/temporal-env';

describe('campaigns on the dev server', () => {
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let selfie: string;
  let imageRoot: string;
  let blobDir: string;

  beforeAll(async () => {
    env = await createDevServerEnv();
    const selfies = await writeSelfies(1, 'campaign-selfies-');
    selfie = selfies.files[0]!;
    imageRoot = selfies.dir;
    blobDir = await makeScratchDir('campaigns');
  });
  beforeEach(async () => {
    sim = await startSimulator({
      progression: { mode: 'wall', trainingMs: 150, generationMs: 150 },
      avatarsPerOrder: 2,
      pageSize: 4,
      failStyles: [19],
    });
  });
  afterEach(async () => sim?.stop());
  afterAll(async () => env?.teardown());

  const rig = (maxRequestsPerSecond?: number) =>
    CampaignRig.create({
      connection: env.nativeConnection,
      client: env.client,
      providerUrl: sim.url,
      imageRoots: [imageRoot],
      blobDir,
      ...(maxRequestsPerSecond ? { maxRequestsPerSecond } : {}),
    });

  test('a failed subject among good ones: reported with the provider message, the others unaffected', async () => {
    const r = await rig();
    const people = subjects(5, selfie, (i) => (i === 2 ? [19] : i === 3 ? [3, 19] : [3, 5]));
    const summary = await r.run(async () => {
      const campaign = await r.start(people, { options: { maxInFlight: 3, polling: FAST_POLLING } });
      return campaign.result();
    });

    expect(summary).toMatchObject({
      total: 5,
      succeeded: 4,
      failed: 1,
      partial: 1,
      cancelled: 0,
      status: 'COMPLETED',
    });
    const byId = Object.fromEntries(summary.subjects.map((s) => [s.subjectId, s]));
    for (const id of ['u1', 'u2', 'u5']) {
      expect(byId[id]).toMatchObject({ status: 'DONE', avatarCount: 4, modelId: expect.any(Number) });
      expect(byId[id]!.error).toBeUndefined();
    }
    expect(byId.u3).toMatchObject({ status: 'FAILED', modelId: expect.any(Number) });
    expect(byId.u3!.error).toMatch(/style 19.*generation failed: style 19 could not be rendered/);
    expect(byId.u4).toMatchObject({ status: 'PARTIAL', avatarCount: 2 });
    expect(byId.u4!.error).toMatch(/^style 19: .*could not be rendered/);
    // One model per subject, every model distinct: nobody lost or duplicated.
    const models = summary.subjects.map((s) => s.modelId);
    expect(new Set(models).size).toBe(5);
    expect(sim.stats().totals.modelsCreated).toBe(5);
  });

  test('status needs no worker: the progress last recorded is read from the memo, its clock moved on', async () => {
    const r = await rig();
    let campaign: CampaignHandle | undefined;
    const seen = await r.run(async () => {
      campaign = await r.start(subjects(6, selfie), { options: { maxInFlight: 2, polling: FAST_POLLING } });
      return progressUntil(campaign, (p) => p.counts.done >= 2);
    });
    // The worker has stopped: a query would find nobody to answer it.
    const first = await campaign!.progress();
    expect(first.state).toBe('running');
    expect(first.counts.done).toBeGreaterThanOrEqual(seen.counts.done);
    expect(first.counts.done + first.counts.running + first.counts.pending).toBe(6);
    await delay(1_000);
    const later = await campaign!.progress();
    expect(later.counts).toEqual(first.counts);
    expect(later.elapsedMs - first.elapsedMs).toBeGreaterThanOrEqual(900);

    // A campaign that ended without completing has no progress to show; its status says how it ended.
    await campaign!.raw.terminate('test done');
    await expect(campaign!.progress()).rejects.toThrow(/is terminated/);
    expect(await campaign!.status()).toBe('TERMINATED');
  });

  test('pause stops new starts while running subjects finish; resume goes on; cancel stops the rest and reports', async () => {
    const r = await rig();
    const summary = await r.run(async () => {
      const campaign = await r.start(subjects(12, selfie), {
        options: { maxInFlight: 2, polling: FAST_POLLING },
      });
      await progressUntil(campaign, (p) => p.counts.done >= 2);

      const paused = await campaign.pause();
      expect(paused.state).toBe('paused');
      const drained = await progressUntil(campaign, (p) => p.counts.running === 0);
      const modelsAtPause = sim.stats().totals.modelsCreated;
      await delay(1_500);
      const still = await campaign.progress();
      expect(still).toMatchObject({ state: 'paused', counts: { running: 0, done: drained.counts.done } });
      expect(sim.stats().totals.modelsCreated).toBe(modelsAtPause);

      expect((await campaign.resume()).state).toBe('running');
      await progressUntil(campaign, (p) => p.counts.done >= drained.counts.done + 2 && p.counts.running > 0);

      const cancelling = await campaign.cancel();
      expect(['cancelling', 'cancelled']).toContain(cancelling.state);
      expect(cancelling.counts.pending).toBe(0);
      const ended = await campaign.result();
      // The campaign counts a subject cancelled once it has asked; its pipeline closes when its
      // own cancellation has run, which needs this worker: wait for that before it stops.
      for (const subject of ended.subjects.filter((s) => s.status === 'CANCELLED'))
        await env.client.workflow
          .getHandle(subject.workflowId)
          .result()
          .catch(() => undefined);
      return ended;
    });

    expect(summary.status).toBe('CANCELLED');
    expect(summary.total).toBe(12);
    expect(summary.succeeded + summary.cancelled + summary.failed).toBe(12);
    expect(summary.cancelled).toBeGreaterThanOrEqual(3);
    expect(summary.failed).toBe(0);
    // Subjects cancelled while running were really cancelled in Temporal; the never-started ones never reached the provider.
    const cancelled = summary.subjects.filter((s) => s.status === 'CANCELLED');
    const started = [];
    for (const subject of cancelled) {
      const described = await env.client.workflow
        .getHandle(subject.workflowId)
        .describe()
        .catch(() => undefined);
      if (described) {
        started.push(subject.subjectId);
        expect(described.status.name).toBe('CANCELLED');
      }
    }
    expect(started.length).toBeLessThanOrEqual(2);
    // Never-started subjects made no model; one cancelled early may not have made its own yet.
    const models = sim.stats().totals.modelsCreated;
    expect(models).toBeGreaterThanOrEqual(summary.succeeded);
    expect(models).toBeLessThanOrEqual(summary.succeeded + started.length);
  });

  test('retry: failed subjects run again, during the campaign and after it ended; nobody else runs twice', async () => {
    const r = await rig();
    await r.run(async () => {
      // While it runs: u1 fails first (window of 1), is retried while u2… are still going.
      const running = await r.start(
        subjects(5, selfie, (i) => (i === 0 ? [19] : [3])),
        { options: { maxInFlight: 1, polling: FAST_POLLING } },
      );
      await progressUntil(running, (p) => p.counts.failed === 1);
      sim.setOptions({ failStyles: [] });
      await progressUntil(running, (p) => p.counts.done >= 1);
      await expect(running.retry(['u2'])).rejects.toThrow(
        /DONE; only failed or cancelled subjects can be retried/,
      );
      const report = await running.retry(['u1']);
      expect(report.queued).toEqual([0]);
      const first = await running.result();
      expect(first).toMatchObject({ succeeded: 5, failed: 0 });
      expect(first.subjects[0]).toMatchObject({ subjectId: 'u1', status: 'DONE', attempts: 2 });

      // After the end: the campaign restarts under its id and runs only the failed subject.
      sim.setOptions({ failStyles: [19] });
      const ended = await r.start(
        subjects(4, selfie, (i) => (i === 1 ? [19] : [5])),
        { options: { maxInFlight: 4, polling: FAST_POLLING } },
      );
      const before = await ended.result();
      expect(before).toMatchObject({ succeeded: 3, failed: 1 });
      expect(before.subjects[1]).toMatchObject({ subjectId: 'u2', status: 'FAILED' });
      const models = sim.stats().totals.modelsCreated;

      sim.setOptions({ failStyles: [] });
      const restarted = await ended.retry();
      expect(restarted.queued).toEqual([1]);
      const after = await ended.result();
      expect(after).toMatchObject({ total: 4, succeeded: 4, failed: 0 });
      expect(after.subjects[1]).toMatchObject({ subjectId: 'u2', status: 'DONE', attempts: 2 });
      expect(after.subjects.filter((s) => s.subjectId !== 'u2').map((s) => s.modelId)).toEqual(
        before.subjects.filter((s) => s.subjectId !== 'u2').map((s) => s.modelId),
      );
      expect(sim.stats().totals.modelsCreated).toBe(models + 1);
      await expect(ended.retry(['u1'])).rejects.toThrow(/is DONE/);
    });
  });

  test('an interactive pipeline started during a busy campaign goes ahead of the campaign on the rate-limited provider queue', async () => {
    // A limit low enough that the provider queue, not the worker's CPU, holds the campaign back
    // even on a busy machine: otherwise the backlog stays shallow and both wait alike.
    const r = await rig(4);
    await r.run(async () => {
      const campaign = await r.start(subjects(40, selfie), {
        // A fixed window, far above what the 4/s limit serves: a deep backlog on purpose.
        options: { maxInFlight: 40, fixedWindow: true, polling: FAST_POLLING },
      });
      await progressUntil(campaign, (p) => p.counts.running === 40);
      await delay(1_000); // a backlog of campaign activities builds up behind the 8/s limit

      const started = Date.now();
      const interactive = await startPipeline(
        env.client,
        {
          images: [selfie],
          styles: [3],
          gender: 2,
          polling: FAST_POLLING,
        },
        r.placement,
      );
      const result = await interactive.result();
      const ended = Date.now();
      const progress = await campaign.progress();
      await campaign.cancel();
      await campaign.result();

      expect(result.status).toBe('DONE');
      // The campaign was still far from done when the interactive pipeline was.
      expect(progress.counts.done).toBeLessThan(20);
      // Its provider activities waited far less in the queue than the campaign's did.
      const window = [started, ended] as const;
      const interactiveWait = await medianQueueWait([interactive.workflowId], ...window);
      const campaignWait = await medianQueueWait(
        subjects(40, selfie).map((s) => `${campaign.campaignId}/${s.subjectId}`),
        ...window,
      );
      // (How long it took overall is a benchmark's figure: npm run bench:campaign, priority.) In
      // first-come order both would wait alike; with priority the campaign's wait is a multiple of
      // the interactive one (about 3× on a busy machine, where a worker's own delay is part of both).
      expect(interactiveWait).toBeGreaterThan(0);
      expect(interactiveWait * 2).toBeLessThan(campaignWait);
    });
    // Forty pipelines, then their wind-down after the cancel (each child's cancel, end and report
    // are workflow tasks): measured at 26-51 s on a 2-core machine under a load average of 9-16,
    // the cancel's wind-down alone 4-27 s. Priority is what is asserted, not speed.
  }, 150_000);

  /**
   * How long provider activities of these pipelines scheduled within [from, to]
   * had waited in the queue by `to`: from scheduled to started, or to `to` for
   * those cancelled before they ever started (with priority working, the
   * campaign's activities scheduled during a short interactive run may all still
   * be waiting when the campaign is cancelled; leaving them out would leave
   * nothing to measure). The median, in ms.
   */
  async function medianQueueWait(pipelineIds: string[], from: number, to: number): Promise<number> {
    const waits: number[] = [];
    for (const id of pipelineIds) {
      const events =
        (
          await env.client.workflow
            .getHandle(id)
            .fetchHistory()
            .catch(() => undefined)
        )?.events ?? [];
      const scheduledAt = new Map<string, number>();
      const waitedUntil = new Map<string, number>();
      for (const event of events) {
        const at = Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
        if (event.activityTaskScheduledEventAttributes) scheduledAt.set(String(event.eventId), at);
        const started = event.activityTaskStartedEventAttributes;
        if (started) waitedUntil.set(String(started.scheduledEventId), at);
        const cancelled = event.activityTaskCanceledEventAttributes;
        if (cancelled && Number(cancelled.startedEventId ?? 0) === 0) {
          waitedUntil.set(String(cancelled.scheduledEventId), to);
        }
      }
      for (const [eventId, scheduled] of scheduledAt) {
        const until = waitedUntil.get(eventId);
        if (until === undefined || scheduled < from || scheduled > to) continue;
        waits.push(Math.min(until, to) - scheduled);
      }
    }
    waits.sort((a, b) => a - b);
    return waits[Math.floor(waits.length / 2)] ?? 0;
  }
});

/**
 * Benchmark: a campaign with the quality checks on (each subject's selfies checked in its pipeline,
 * its face recorded, every style's avatars checked) beside the same campaign with them off, in one
 * run, on the same stack: makespan of each, their ratio, and what the check workers spent.
 *
 *   npm run build && node dist/bench/campaign-checks.js [--subjects 20] [--styles 2]
 *     [--training 90] [--generation 20] [--rps 1] [--check-workers 1]
 *
 * Subjects are four real photographs each (the sample selfies), and the simulator draws avatars of
 * them at 256 px, so every check does its real work (about 0.6 s of one core a selfie, 0.7 s an
 * avatar: bench/avatar-checks.ts). Trainings and generations take their real time; the quota is
 * what one machine's check workers can keep pace with (1 request/s by default, a fifteenth of 15):
 * check work grows with the subjects started per second, so the check slots a larger quota needs
 * scale with it (the output works that out from the measured CPU). Each check worker is a process
 * of its own (`avatar-pipeline worker` with CHECK_WORKER=only, CHECK_WORKER_CONCURRENCY=1); the
 * pipeline and provider workers run without one (CHECK_WORKER=off).
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import type { RunPlacement } from '@avatar-pipeline/client/config/run-placement';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { sampleSelfieFiles } from '../src/samples/sample-selfies';
import { numberArg } from './cli-args';
import { catalogStyles, minimalRequestsPerSubject, type Scale } from './campaign-scale';
import {
  launchCampaign,
  loadLine,
  markdownTable,
  openContext,
  simulatorOptions,
  startCampaignWorker,
  type Context,
} from './campaign-scenarios';
import {
  freshSimulator,
  stackBlobDir,
  stackImageDir,
  startWorkerProcess,
  type WorkerProcess,
} from './campaign-stack';

interface Outcome {
  label: string;
  done: number;
  makespanS: number;
  requests: number;
  avatars: number;
  /** Avatars whose result row carries a check with every part of it run (none `notChecked`). */
  checkedAvatars: number;
  failedAvatars: number;
  checkCpuS?: number;
}

function subjectsWithFaces(dir: string, scale: Scale): CampaignSubject[] {
  const images = sampleSelfieFiles().map((file) => {
    const copy = path.join(dir, path.basename(file));
    copyFileSync(file, copy);
    return copy;
  });
  return Array.from({ length: scale.subjects }, (_, i) => ({
    subjectId: `f${String(i + 1).padStart(5, '0')}`,
    gender: ((i % 2) + 1) as 1 | 2,
    styles: scale.styles,
    images,
    mainImageIndex: 0,
    row: i + 2,
  }));
}

async function runCampaign(context: Context, label: string, checkWorkers: number): Promise<Outcome> {
  const sim = await freshSimulator(simulatorOptions(context.scale));
  const faces = stackImageDir(context.stack);
  const worker = await startCampaignWorker(context, sim, { CHECK_WORKER: 'off', IMAGE_ROOTS: faces });
  const checksQueue = `${worker.placement.taskQueue}-checks`;
  const checkers: WorkerProcess[] = [];
  try {
    for (let i = 0; i < checkWorkers; i += 1) {
      checkers.push(
        await startWorkerProcess(
          context.stack,
          {
            TEMPORAL_ADDRESS: context.stack.server.address,
            TEMPORAL_NAMESPACE: context.stack.server.namespace,
            TEMPORAL_TASK_QUEUE: worker.placement.taskQueue,
            PROVIDER_BASE_URL: sim.url,
            PROVIDER_API_KEY: 'sim-key',
            IMAGE_ROOTS: faces,
            BLOB_DIR: stackBlobDir(context.stack),
            LOG_LEVEL: 'WARN',
            CHECK_WORKER: 'only',
            CHECK_WORKER_CONCURRENCY: '1',
          },
          { pipeline: checksQueue, provider: checksQueue },
        ),
      );
    }
    const placement: RunPlacement =
      checkWorkers > 0
        ? {
            ...worker.placement,
            checks: { taskQueue: checksQueue, selfies: true, avatars: true, avatarRegenerations: 1 },
          }
        : worker.placement;
    const subjects = subjectsWithFaces(faces, context.scale);
    const started = Date.now();
    const campaign = await launchCampaign(context, { ...worker, placement }, subjects, { kind: 'auto' });
    const log = setInterval(
      () =>
        process.stderr.write(
          `  ${label}: ${((Date.now() - started) / 1000).toFixed(0)} s, ${sim.stats().requests.total} requests\n`,
        ),
      30_000,
    );
    const summary = await campaign.result().finally(() => clearInterval(log));
    const makespanS = (Date.now() - started) / 1000;
    let avatars = 0;
    let failedAvatars = 0;
    let checkedAvatars = 0;
    for await (const row of campaign.resultRows()) {
      avatars += 1;
      if (row.check?.passed === false) failedAvatars += 1;
      if (row.check !== undefined && row.check.notChecked === undefined) checkedAvatars += 1;
    }
    return {
      label,
      done: summary.subjects.filter((s) => s.status === 'DONE').length,
      makespanS,
      requests: sim.stats().requests.total,
      avatars,
      checkedAvatars,
      failedAvatars,
      ...(checkWorkers > 0 ? { checkCpuS: checkers.reduce((sum, c) => sum + c.cpuSeconds(), 0) } : {}),
    };
  } finally {
    for (const checker of checkers) await checker.stop();
    await worker.worker.stop();
    await sim.stop();
  }
}

async function main(): Promise<void> {
  const argv = process.argv;
  const scale: Scale = {
    subjects: numberArg(argv, 'subjects', 20),
    styles: catalogStyles(numberArg(argv, 'styles', 2)),
    trainingS: numberArg(argv, 'training', 90),
    generationS: numberArg(argv, 'generation', 20),
    rps: numberArg(argv, 'rps', 1),
    timeScale: 1,
  };
  const checkWorkers = numberArg(argv, 'check-workers', 1);
  const say = (line = '') => console.log(line);
  const context = await openContext(scale, say);
  try {
    say(
      `Campaign with checks on beside off: ${scale.subjects} subjects × ${scale.styles.length} styles, 4 real selfies each, ` +
        `training ${scale.trainingS} s, generation ${scale.generationS} s, quota ${scale.rps} requests/s, ` +
        `${checkWorkers} check worker process(es) of one slot; Node ${process.version}.`,
    );
    say(`Load before: ${loadLine()}.`);
    process.stderr.write('checks off…\n');
    const off = await runCampaign(context, 'checks off', 0);
    process.stderr.write('checks on…\n');
    const on = await runCampaign(context, 'checks on', checkWorkers);
    say(`Load after: ${loadLine()}.`);
    say(
      markdownTable(
        [off, on].map((o) => ({
          campaign: o.label,
          done: `${o.done}/${scale.subjects}`,
          makespan: `${o.makespanS.toFixed(0)} s`,
          'vs checks off': `${(o.makespanS / off.makespanS).toFixed(3)}x`,
          'requests/subject': (o.requests / scale.subjects).toFixed(1),
          avatars: `${o.avatars} (${o.checkedAvatars} checked, ${o.failedAvatars} failed)`,
          'check CPU': o.checkCpuS === undefined ? '-' : `${o.checkCpuS.toFixed(0)} s`,
        })),
      ),
    );
    const cpu = on.checkCpuS ?? 0;
    const perSubject = cpu / scale.subjects;
    const busy = cpu / (on.makespanS * checkWorkers);
    // Three more uploads than the one-selfie subjects the minimum is counted for.
    const minimal = minimalRequestsPerSubject(scale.styles.length) + 3;
    say(
      `- Check CPU per subject: ${perSubject.toFixed(1)} s (models' load included); the check slots were busy ` +
        `${(busy * 100).toFixed(0)}% of the makespan.`,
    );
    say(
      `- At 15 requests/s a campaign starts at most 15 / ${(on.requests / scale.subjects).toFixed(1)} requests per subject ` +
        `(${minimal} at least) = ${(15 / (on.requests / scale.subjects)).toFixed(2)} subjects/s, so its checks need ` +
        `${((15 / (on.requests / scale.subjects)) * perSubject).toFixed(1)} busy cores: that many check slots (one core each) keep pace.`,
    );
    say(`- ${on.makespanS <= 1.1 * off.makespanS ? 'met' : 'MISSED'}: makespan with checks ≤ 1.1 × without`);
  } finally {
    await context.stack.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

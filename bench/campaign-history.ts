/**
 * A campaign of thousands of small subjects: every run's history stays under Temporal's warnings
 * (10,240 events, 10 MB), and how long its continue-as-new boundaries stall it. The campaign
 * workflow as shipped (default 400 subjects per run), with a stand-in pipeline that finishes at
 * once (the same one the tests use), on its own dev server: the ends arrive as fast as the worker
 * can start subjects, the hardest case for a run's closing task. While it runs, `campaigns
 * status`'s client call (a fresh handle's progress()) is timed once a second.
 *
 * Per run it prints events, bytes, refused or timed-out workflow tasks by cause, and the closing
 * stall: from the first refused attempt of the run's closing task to the continue-as-new.
 *
 *   npm run bench:campaign-history
 *   node dist/bench/campaign-history.js [--subjects 5000] [--subjects-per-run 400]
 *        [--baseline <checkout, built> --baseline-label "before, f1e5112"]
 *
 * With --baseline the same campaign first runs on that checkout's campaign workflow, stand-in and
 * activities (its dist/, packages/client/dist/ and test/stand-in-workflows/), on the same server, and the
 * figures are printed side by side. The baseline must keep campaign manifests in the blob store too
 * (a checkout from that change on).
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type * as CampaignActivitiesModule from '../activities/campaign-activities';
import type * as CampaignsModule from '@avatar-pipeline/client/campaign/campaigns';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import { findPackageRoot } from '../src/config/package-root';
import { percentile } from './campaign-at-scale';
import { loadLine } from './campaign-scenarios';
import { startStack, type Stack } from './campaign-stack';
import { stringArg } from './cli-args';

const WARN_EVENTS = 10_240;
const WARN_BYTES = 10 * 1024 * 1024;
/** Names of the workflow task failure causes seen here (temporal.api.enums.v1.WorkflowTaskFailedCause). */
const TASK_FAILED_CAUSES: Record<number, string> = {
  1: 'UnhandledCommand',
  13: 'ResetStickyTaskQueue',
  14: 'WorkerUnhandledFailure',
  17: 'ForceCloseCommand',
  24: 'NonDeterministic',
  31: 'UnhandledUpdate',
};
/** A status call this close to a run's end (before its start or after its answer) is "near a boundary". */
const NEAR_BOUNDARY_MS = 3_000;

/** The code measured: a package checkout, built (dist/), with its test stand-ins. */
interface Build {
  label: string;
  root: string;
}

interface RunFigures {
  run: number;
  status: string;
  events: number;
  bytes: number;
  failedTasks: Record<string, number>;
  closingStallMs: number;
  closedAtMs?: number;
}

interface Figures {
  build: Build;
  seconds: number;
  succeeded: number;
  total: number;
  status: { startMs: number; ms: number; failed: boolean }[];
  runs: RunFigures[];
  loadBefore: string;
  loadAfter: string;
}

async function main(): Promise<void> {
  const count = numberArg('subjects') ?? 5_000;
  const subjectsPerRun = numberArg('subjects-per-run');
  const baselineRoot = stringArg(process.argv, 'baseline');
  const builds: Build[] = [
    ...(baselineRoot
      ? [
          {
            label: stringArg(process.argv, 'baseline-label') ?? `baseline (${baselineRoot})`,
            root: path.resolve(baselineRoot),
          },
        ]
      : []),
    { label: 'this build', root: findPackageRoot() },
  ];
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const stack = await startStack();
  const results: Figures[] = [];
  try {
    for (const build of builds) {
      console.log(`\n== ${build.label}: ${count} subjects ==`);
      const figures = await measure(stack, build, count, subjectsPerRun);
      printBuild(figures);
      results.push(figures);
    }
  } finally {
    await stack.close();
  }
  if (results.length > 1) printSideBySide(results);
  const mine = results.at(-1)!;
  const maxEvents = Math.max(...mine.runs.map((r) => r.events));
  const maxBytes = Math.max(...mine.runs.map((r) => r.bytes));
  if (maxEvents >= WARN_EVENTS || maxBytes >= WARN_BYTES || mine.succeeded !== count) process.exitCode = 1;
}

async function measure(
  stack: Stack,
  build: Build,
  count: number,
  subjectsPerRun: number | undefined,
): Promise<Figures> {
  const { createCampaignActivities } = (await import(
    path.join(build.root, 'dist/activities/campaign-activities.js')
  )) as typeof CampaignActivitiesModule;
  const { startCampaign, getCampaign } = (await import(
    path.join(build.root, 'packages/client/dist/campaign/campaigns.js')
  )) as typeof CampaignsModule;
  const store = new FsBlobStore(path.join(stack.dir, `blobs-${build.label.replace(/[^A-Za-z0-9]+/g, '-')}`));
  const taskQueue = `history-${Date.now()}`;
  const connection = await NativeConnection.connect({ address: stack.server.address });
  try {
    const worker = await Worker.create({
      connection,
      namespace: stack.server.namespace,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: path.join(build.root, 'test/stand-in-workflows/campaign-stand-in.ts'),
        logger: new DefaultLogger('WARN'),
      }),
      activities: {
        ...createCampaignActivities({ store }),
        // A campaign asks at start whether anything is subscribed to its webhooks: here nothing is.
        webhookSubscribed: async () => ({ subscribed: false }),
      },
      maxCachedWorkflows: 500,
      maxConcurrentWorkflowTaskExecutions: 50,
    });
    const subjects: CampaignSubject[] = Array.from({ length: count }, (_, n) => ({
      subjectId: `p${n + 1}`,
      gender: 1,
      styles: [3, 5, 7],
      images: ['/selfies/p.png'],
      mainImageIndex: 0,
      row: n + 2,
    }));
    const loadBefore = loadLine();
    const started = Date.now();
    const status: Figures['status'] = [];
    const { summary, campaignId } = await worker.runUntil(async () => {
      const campaign = await startCampaign(stack.client, subjects, {
        ...placementFrom({ taskQueue }),
        store,
        pipelineWorkflowType: 'standInPipeline',
        options: { maxInFlight: 200, ...(subjectsPerRun ? { subjectsPerRun } : {}) },
      });
      let running = true;
      const sampling = (async () => {
        while (running) {
          const startMs = Date.now();
          const t = performance.now();
          const failed = await getCampaign(stack.client, campaign.campaignId, { store })
            .progress()
            .then(
              () => false,
              () => true,
            );
          status.push({ startMs, ms: performance.now() - t, failed });
          await delay(1_000);
        }
      })();
      const summary = await campaign.result().finally(() => (running = false));
      await sampling;
      return { summary, campaignId: campaign.campaignId };
    });
    return {
      build,
      seconds: (Date.now() - started) / 1000,
      succeeded: summary.succeeded,
      total: summary.total,
      status,
      runs: await runFigures(stack.client, campaignId),
      loadBefore,
      loadAfter: loadLine(),
    };
  } finally {
    await connection.close();
  }
}

/** Every run of the campaign, oldest first, read from its history. */
async function runFigures(client: Client, campaignId: string): Promise<RunFigures[]> {
  const runs: RunFigures[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${campaignId}'` })) {
    const handle = client.workflow.getHandle(campaignId, run.runId);
    const description = await handle.describe();
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const failedTasks: Record<string, number> = {};
    const timeOf = (i: number) => tsToMs(events[i]?.eventTime);
    const completed: number[] = [];
    events.forEach((event, i) => {
      if (event.workflowTaskCompletedEventAttributes) completed.push(i);
      const cause = event.workflowTaskFailedEventAttributes?.cause;
      if (cause !== undefined && cause !== null) {
        const name = TASK_FAILED_CAUSES[Number(cause)] ?? `cause ${String(cause)}`;
        failedTasks[name] = (failedTasks[name] ?? 0) + 1;
      }
      if (event.workflowTaskTimedOutEventAttributes) failedTasks.TimedOut = (failedTasks.TimedOut ?? 0) + 1;
    });
    // The closing task: the last completed one. Its refused or timed-out attempts lie after the one before it.
    const last = completed.at(-1) ?? events.length - 1;
    const previous = completed.at(-2) ?? 0;
    let firstRefused: number | undefined;
    for (let i = previous + 1; i < last; i++) {
      if (events[i]?.workflowTaskFailedEventAttributes || events[i]?.workflowTaskTimedOutEventAttributes) {
        firstRefused = i;
        break;
      }
    }
    runs.push({
      run: 0,
      status: description.status.name,
      events: description.historyLength,
      bytes: Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0),
      failedTasks,
      closingStallMs: firstRefused === undefined ? 0 : timeOf(last) - timeOf(firstRefused),
      ...(description.closeTime ? { closedAtMs: description.closeTime.getTime() } : {}),
    });
  }
  runs.reverse().forEach((row, n) => (row.run = n + 1));
  return runs;
}

function statusLine(figures: Figures): string {
  const all = figures.status.map((s) => s.ms);
  const boundaries = figures.runs.flatMap((r) =>
    r.status === 'CONTINUED_AS_NEW' && r.closedAtMs ? [r.closedAtMs] : [],
  );
  const near = figures.status.filter((s) =>
    boundaries.some((b) => b >= s.startMs - NEAR_BOUNDARY_MS && b <= s.startMs + s.ms + NEAR_BOUNDARY_MS),
  );
  const failed = figures.status.filter((s) => s.failed).length;
  const max = (values: number[]) => (values.length ? `${Math.max(...values).toFixed(0)} ms` : '-');
  return (
    `p50 ${percentile(all, 0.5).toFixed(0)} ms, p99 ${percentile(all, 0.99).toFixed(0)} ms, max ${max(all)} ` +
    `(${all.length} calls, ${failed} failed); near a boundary max ${max(near.map((s) => s.ms))} (${near.length})`
  );
}

function printBuild(f: Figures): void {
  console.log(`Load before: ${f.loadBefore}. Load after: ${f.loadAfter}.`);
  console.log(`${f.total} subjects in ${f.seconds.toFixed(0)} s: ${f.succeeded} succeeded`);
  console.log(`campaigns status (client call, once a second): ${statusLine(f)}`);
  console.log('run  status            events   history size   closing stall   refused or timed-out tasks');
  for (const r of f.runs) {
    const failed = Object.entries(r.failedTasks)
      .map(([cause, n]) => `${cause} ${n}`)
      .join(', ');
    console.log(
      `${String(r.run).padStart(3)}  ${r.status.padEnd(16)}  ${String(r.events).padStart(6)}   ${(r.bytes / 1024).toFixed(0).padStart(8)} KiB   ${(r.closingStallMs / 1000).toFixed(1).padStart(11)} s   ${failed || '-'}`,
    );
  }
  const maxEvents = Math.max(...f.runs.map((r) => r.events));
  const maxBytes = Math.max(...f.runs.map((r) => r.bytes));
  console.log(
    `${f.runs.length} runs; largest: ${maxEvents} events (${((maxEvents / WARN_EVENTS) * 100).toFixed(0)}% of the 10,240 warning), ` +
      `${(maxBytes / 1024 / 1024).toFixed(2)} MB (${((maxBytes / WARN_BYTES) * 100).toFixed(0)}% of the 10 MB warning)`,
  );
}

function printSideBySide(all: Figures[]): void {
  console.log(
    '\n| build | done | wall time | runs | largest run | workflow tasks failed or timed out | closing stall, sum / max | status p50 / p99 / max |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const f of all) {
    const refused = f.runs.reduce((n, r) => n + Object.values(r.failedTasks).reduce((a, b) => a + b, 0), 0);
    const stalls = f.runs.map((r) => r.closingStallMs / 1000);
    const ms = f.status.map((s) => s.ms);
    console.log(
      `| ${f.build.label} | ${f.succeeded}/${f.total} | ${f.seconds.toFixed(0)} s | ${f.runs.length} | ` +
        `${Math.max(...f.runs.map((r) => r.events))} events | ${refused} | ` +
        `${stalls.reduce((a, b) => a + b, 0).toFixed(1)} s / ${Math.max(...stalls).toFixed(1)} s | ` +
        `${percentile(ms, 0.5).toFixed(0)} / ${percentile(ms, 0.99).toFixed(0)} / ${Math.max(...ms).toFixed(0)} ms |`,
    );
  }
}

function numberArg(name: string): number | undefined {
  const value = stringArg(process.argv, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number, not "${value}"`);
  return n;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

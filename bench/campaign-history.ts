/**
 * A campaign of 5,000 small subjects keeps every run's history under Temporal's warnings
 * (10,240 events, 10 MB): the campaign workflow as shipped (default 400 subjects per run), with
 * a stand-in pipeline that finishes at once (the same one the tests use), on its own dev server.
 * While it runs, `campaigns status`'s client call (a fresh handle's progress()) is timed once a
 * second: what the campaign's size costs that call, the ledger and manifest of every subject.
 *
 *   npm run bench:campaign-history          (or: node dist/bench/campaign-history.js --subjects 5000)
 */
import { placementFrom } from '../src/config/run-placement';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createCampaignActivities } from '../src/campaign/activities';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { getCampaign, startCampaign } from '../src/campaign/client/campaigns';
import type { CampaignSubject } from '../src/campaign/contracts/campaign';
import { percentile } from './campaign-at-scale';
import { loadLine } from './campaign-scenarios';
import { startStack } from './campaign-stack';

const WARN_EVENTS = 10_240;
const WARN_BYTES = 10 * 1024 * 1024;

async function main(): Promise<void> {
  const i = process.argv.indexOf('--subjects');
  const count = i >= 0 ? Number(process.argv[i + 1]) : 5_000;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const stack = await startStack();
  const manifestDir = path.join(stack.dir, 'campaigns');
  const taskQueue = `history-${Date.now()}`;
  const connection = await NativeConnection.connect({ address: stack.server.address });
  try {
    const worker = await Worker.create({
      connection,
      namespace: stack.server.namespace,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: path.resolve(__dirname, '../../test/workflows/campaign-stand-in.ts'),
        logger: new DefaultLogger('WARN'),
      }),
      activities: {
        ...createCampaignActivities({ manifestDir }),
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
    console.log(`Load before: ${loadLine()}.`);
    const started = Date.now();
    const statusMs: number[] = [];
    let statusFailed = 0;
    const { summary, campaignId } = await worker.runUntil(async () => {
      const campaign = await startCampaign(stack.client, subjects, {
        ...placementFrom({ taskQueue }),
        manifestDir,
        pipelineWorkflowType: 'standInPipeline',
        options: { maxInFlight: 200 },
      });
      let running = true;
      const sampling = (async () => {
        while (running) {
          const t = performance.now();
          await getCampaign(stack.client, campaign.campaignId, { manifestDir })
            .progress()
            .catch(() => void statusFailed++);
          statusMs.push(performance.now() - t);
          await delay(1_000);
        }
      })();
      const summary = await campaign.result().finally(() => (running = false));
      await sampling;
      return { summary, campaignId: campaign.campaignId };
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `${count} subjects in ${seconds.toFixed(0)} s: ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.total} in the summary`,
    );
    console.log(`Load after: ${loadLine()}.`);
    console.log(
      `campaigns status (client call, once a second, ${statusMs.length} calls, ${statusFailed} failed): ` +
        `p50 ${percentile(statusMs, 0.5).toFixed(0)} ms, p99 ${percentile(statusMs, 0.99).toFixed(0)} ms, ` +
        `max ${Math.max(...statusMs).toFixed(0)} ms`,
    );
    const rows: { run: number; status: string; events: number; bytes: number }[] = [];
    for await (const run of stack.client.workflow.list({ query: `WorkflowId = '${campaignId}'` })) {
      const description = await stack.client.workflow.getHandle(campaignId, run.runId).describe();
      const bytes = Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0);
      rows.push({ run: 0, status: description.status.name, events: description.historyLength, bytes });
    }
    rows.reverse().forEach((row, n) => (row.run = n + 1));
    console.log('run  status            events   history size');
    for (const r of rows) {
      console.log(
        `${String(r.run).padStart(3)}  ${r.status.padEnd(16)}  ${String(r.events).padStart(6)}   ${(r.bytes / 1024).toFixed(0).padStart(6)} KiB`,
      );
    }
    const maxEvents = Math.max(...rows.map((r) => r.events));
    const maxBytes = Math.max(...rows.map((r) => r.bytes));
    console.log(
      `\n${rows.length} runs; largest: ${maxEvents} events (${((maxEvents / WARN_EVENTS) * 100).toFixed(0)}% of the 10,240 warning), ` +
        `${(maxBytes / 1024 / 1024).toFixed(2)} MB (${((maxBytes / WARN_BYTES) * 100).toFixed(0)}% of the 10 MB warning)`,
    );
    if (maxEvents >= WARN_EVENTS || maxBytes >= WARN_BYTES || summary.succeeded !== count)
      process.exitCode = 1;
  } finally {
    await connection.close();
    await stack.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

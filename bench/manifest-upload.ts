/**
 * Benchmark: manifests past the limits, uploaded to the real API (in this process) as multipart:
 * 20 MiB files of stray-quote lines and of blank lines (read to the end), and one-row files of 420,000
 * selfies and of 1,000,000 styles. For each it prints the answer, the event-loop time the upload
 * and its refusal took (performance.eventLoopUtilization, the sending client included), the
 * longest event-loop stall, and the slowest /healthz answer, polled every 50 ms from a worker
 * thread (its own event loop) the whole time. Beside it, the reader the API had before (the file
 * parsed again from each fault on), timed on smaller files: it grows with the square of the lines.
 *
 *   npm run bench:manifest                        (builds, then runs both manifest benchmarks)
 *   node dist/bench/manifest-upload.js --old-lines 8000,16000,32000
 */
import { filesystemStorage } from '@avatar-pipeline/client/storage/storage-settings';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { performance, monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { Client } from '@temporalio/client';
import { CsvError, parse } from 'csv-parse/sync';
import { createApiServer } from '../src/api/server';
import { MAX_MANIFEST_BYTES } from '../src/campaign/manifest';
import { stringArg } from './cli-args';

/** The issue's target. */
const TARGET = { eventLoopMs: 2_000, healthzMs: 200 };
const TOKEN = 'bench-manifest-token-0123456789';
const HEADER = 'subjectId,gender,styles,selfies,mainImage';

function strayQuotes(maxBytes: number): string {
  const line = 'x"1,1,3,/a,\n';
  return HEADER + '\n' + line.repeat(Math.floor((maxBytes - HEADER.length - 1) / line.length));
}

/** Polls /healthz every 50 ms from its own thread; posts the slowest answer (ms) when told to stop. */
const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
let max = 0, count = 0, stop = false;
parentPort.on('message', () => { stop = true; });
(async () => {
  while (!stop) {
    const t0 = performance.now();
    await fetch(workerData + '/healthz').then((r) => r.text());
    max = Math.max(max, performance.now() - t0); count++;
    await new Promise((r) => setTimeout(r, 50));
  }
  parentPort.postMessage({ max, count });
})();
`;

async function measure(base: string, manifest: string, fileName: string) {
  const poller = new Worker(POLLER, { eval: true, workerData: base });
  await delay(200);
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const before = performance.eventLoopUtilization();
  const t0 = performance.now();
  const form = new FormData();
  form.set('manifest', new Blob([manifest], { type: 'text/csv' }), fileName);
  const res = await fetch(`${base}/v1/campaigns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: form,
  });
  const body = (await res.json()) as { error: string; issues: { message: string }[] };
  const wallMs = performance.now() - t0;
  await delay(100);
  const loop = performance.eventLoopUtilization(before);
  stalls.disable();
  const healthz = await new Promise<{ max: number; count: number }>((resolve) => {
    poller.once('message', resolve);
    poller.postMessage('stop');
  });
  await poller.terminate();
  return {
    status: res.status,
    first: body.issues[0]?.message ?? body.error,
    issues: body.issues.length,
    eventLoopMs: loop.active,
    wallMs,
    stallMs: stalls.max / 1e6,
    healthzMs: healthz.max,
    polls: healthz.count,
  };
}

/** The reader the API had before: on each fault the rest of the file is parsed again. */
function oldParseCsv(text: string): number {
  const lineStarts = [0];
  for (const match of text.matchAll(/\r\n|\r|\n/g)) lineStarts.push(match.index + match[0].length);
  let problems = 0;
  let firstLine = 1;
  while (firstLine <= lineStarts.length) {
    const offset = firstLine - 1;
    try {
      parse(text.slice(lineStarts[offset]), { bom: true, relax_column_count: true, on_record: () => null });
      break;
    } catch (err) {
      if (!(err instanceof CsvError)) throw err;
      problems++;
      const faultLine = offset + ((err as CsvError & { lines?: number }).lines ?? lineStarts.length);
      firstLine = Math.max(firstLine + 1, faultLine + 1);
    }
  }
  return problems;
}

async function main(): Promise<void> {
  const oldLines = stringArg(process.argv, 'old-lines', '8000,16000,32000').split(',').map(Number);
  const root = await mkdtemp(join(tmpdir(), 'bench-manifest-upload-'));
  const app = await createApiServer({
    config: {
      temporal: { address: 'unused', namespace: 'default', taskQueue: 'q' },
      imageAccess: { roots: [root], urlHosts: [] },
      api: {
        tokens: [TOKEN],
        port: 0,
        host: '127.0.0.1',
        blobDir: join(root, 'blobs'),
        maxFileBytes: 10 * 1024 * 1024,
      },
      storage: filesystemStorage(join(root, 'blobs')),
      callbacks: { privateHosts: [] },
      placement: placementFrom({ taskQueue: 'q' }),
      campaigns: { maxInFlight: 4 },
    },
    // Refused manifests never reach Temporal.
    client: {} as Client,
    provider: { listStyles: () => Promise.resolve([{ id: 3, name: 'Oil', ready: true }]) } as never,
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const scenarios: [string, string, string][] = [
      [
        `stray-quote lines, ${MAX_MANIFEST_BYTES} bytes (CSV)`,
        strayQuotes(MAX_MANIFEST_BYTES - 1024),
        'm.csv',
      ],
      // Read to the end: blank lines are no rows, so no row limit stops this one.
      [
        `blank lines, ${MAX_MANIFEST_BYTES} bytes (CSV)`,
        `${HEADER}\n${'\n'.repeat(MAX_MANIFEST_BYTES - 1024)}`,
        'm.csv',
      ],
      ['one row of 420,000 selfies (CSV)', `${HEADER}\nu1,1,3,${'a.jpg;'.repeat(420_000)},\n`, 'm.csv'],
      ['one row of 1,000,000 styles (CSV)', `${HEADER}\nu1,1,${'1;'.repeat(1_000_000)},a.jpg,\n`, 'm.csv'],
      [
        'one row of 420,000 selfies (JSONL)',
        `${JSON.stringify({ subjectId: 'u1', gender: 1, styles: [3], selfies: Array(420_000).fill('a.jpg') })}\n`,
        'm.jsonl',
      ],
    ];
    process.stdout.write('Manifests past the limits, POSTed as multipart to the API in this process\n\n');
    for (const [label, manifest, fileName] of scenarios) {
      const run = await measure(base, manifest, fileName);
      const met = run.eventLoopMs < TARGET.eventLoopMs && run.healthzMs < TARGET.healthzMs;
      process.stdout.write(
        [
          `now, ${label}, ${Buffer.byteLength(manifest)} bytes:`,
          `  ${run.status}, ${run.issues} issues listed, first: ${run.first}`,
          `  event-loop ${run.eventLoopMs.toFixed(0)} ms (wall ${run.wallMs.toFixed(0)} ms), longest stall ${run.stallMs.toFixed(0)} ms`,
          `  /healthz every 50 ms: ${run.polls} answers, slowest ${run.healthzMs.toFixed(0)} ms`,
          `  target: event-loop < ${TARGET.eventLoopMs} ms, /healthz < ${TARGET.healthzMs} ms -> ${met ? 'met' : 'NOT met'}`,
          '',
        ].join('\n'),
      );
    }
    process.stdout.write('before (the old CSV reader alone, synchronous, on stray-quote files):\n');
    for (const lines of oldLines) {
      const text = HEADER + '\n' + 'x"1,1,3,/a,\n'.repeat(lines);
      const t0 = performance.now();
      const problems = oldParseCsv(text);
      const ms = performance.now() - t0;
      process.stdout.write(
        `  ${String(lines).padStart(6)} lines (${(text.length / 1e6).toFixed(2)} MB): ${ms.toFixed(0).padStart(6)} ms blocked, ${problems} faults\n`,
      );
    }
    process.stdout.write('  (time grows with the square of the lines)\n');
  } finally {
    await app.close();
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});

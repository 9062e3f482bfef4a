/**
 * Benchmark: event-loop time and answer size when the API validates a 10,000-row manifest full of
 * duplicate subject ids, beside the duplicate check the validator had before,
 * whose messages listed every line of every duplicate (quadratic in time, memory and answer size).
 *
 *   npm run bench:manifest                        (builds, then runs dist/bench/manifest-validation.js)
 *   node dist/bench/manifest-validation.js --rows 10000 --ids 10 --old-rows 1000,2000,4000
 *
 * Event-loop time is the loop's active time (performance.eventLoopUtilization) while the manifest
 * is validated and the 422 body is built, so time spent waiting for file reads is not counted.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiError } from '../src/api/api-error';
import { validateManifestObjects } from '../src/campaign/manifest';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import { stringArg } from './cli-args';

/** The issue's target: under a second of event-loop time, at most 100 issues listed. */
const TARGET = { eventLoopMs: 1_000, listed: 100 };

function manifest(rows: number, ids: number, selfie: string) {
  return Array.from({ length: rows }, (_, i) => ({
    subjectId: `person-${i % ids}`,
    gender: 1,
    styles: [3],
    selfies: [selfie],
  }));
}

/** The duplicate check as it was: every message lists every line, and the list is rebuilt per row. */
function oldDuplicateMessages(subjectIds: string[]): number {
  const byId = new Map<string, number[]>();
  subjectIds.forEach((id, i) => byId.set(id, [...(byId.get(id) ?? []), i + 1]));
  let chars = 0;
  for (const [subjectId, rows] of byId) {
    if (rows.length < 2) continue;
    for (const _row of rows)
      chars +=
        `"${subjectId}" is used by ${rows.length} rows (lines ${rows.join(', ')}); subject ids must be unique`
          .length;
  }
  return chars;
}

async function measure(subjects: ReturnType<typeof manifest>) {
  const before = performance.eventLoopUtilization();
  const started = performance.now();
  const validation = await validateManifestObjects(subjects);
  const body = JSON.stringify(
    ApiError.invalid(
      validation.issues.map((i) => ({ path: `subjects.${i.row - 1}.${i.field}`, message: i.message })),
    ).body(),
  );
  const wallMs = performance.now() - started;
  await delay(0);
  const loop = performance.eventLoopUtilization(before);
  return {
    eventLoopMs: loop.active,
    wallMs,
    found: validation.issues.length,
    listed: (JSON.parse(body) as { issues: unknown[] }).issues.length,
    bodyBytes: body.length,
  };
}

async function main(): Promise<void> {
  const rows = Number(stringArg(process.argv, 'rows', '10000'));
  const ids = Number(stringArg(process.argv, 'ids', '10'));
  const oldRows = stringArg(process.argv, 'old-rows', '1000,2000,4000').split(',').map(Number);
  const dir = await mkdtemp(join(tmpdir(), 'bench-manifest-'));
  try {
    const selfie = join(dir, 'selfie.png');
    await writeFile(selfie, syntheticSelfiePng(1, 64));
    // The loop must be running for its utilisation to be measured.
    await delay(10);
    process.stdout.write(
      `Manifest of ${rows} rows, ${ids} distinct subject ids (every row a duplicate), validated and answered 422\n\n`,
    );
    for (const [label, path] of [
      ["selfies that do not exist (the review's request)", join(dir, 'missing.png')],
      ['one real selfie per row (every image read and checked)', selfie],
    ] as const) {
      const run = await measure(manifest(rows, ids, path));
      process.stdout.write(
        [
          `now, ${label}:`,
          `  event-loop ${run.eventLoopMs.toFixed(0)} ms (wall ${run.wallMs.toFixed(0)} ms), ${run.found} issues found, ${run.listed} listed, 422 body ${run.bodyBytes} bytes`,
          `  target: event-loop < ${TARGET.eventLoopMs} ms, at most ${TARGET.listed} listed -> ${
            run.eventLoopMs < TARGET.eventLoopMs && run.listed <= TARGET.listed ? 'met' : 'NOT met'
          }`,
          '',
        ].join('\n'),
      );
    }
    process.stdout.write('before (the old duplicate check alone, synchronous; every issue was returned):\n');
    for (const n of oldRows) {
      const subjectIds = Array.from({ length: n }, (_, i) => `person-${i % ids}`);
      const t0 = performance.now();
      const chars = oldDuplicateMessages(subjectIds);
      const ms = performance.now() - t0;
      process.stdout.write(
        `  ${String(n).padStart(6)} rows: ${ms.toFixed(0).padStart(6)} ms blocked, ${(chars / 1e6).toFixed(1)} MB of messages\n`,
      );
    }
    process.stdout.write('  (time and size grow with the square of the rows)\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});

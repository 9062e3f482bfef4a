/**
 * The benchmark report: every figure of the pipeline issue in one table, all from this one run,
 * each beside its baseline. Campaigns under a quota are bench/campaign.ts (npm run bench:campaign).
 *
 *   npm run bench                                  (builds, then runs dist/bench/report.js --write)
 *   node dist/bench/report.js [--pipelines 1000] [--write]
 *   node dist/bench/report.js --only polling       (the polling rows alone, printed; a minute)
 *
 * --write also records the table in bench/RESULTS.md with the machine's description, in place of
 * the report section between its markers; the rest of the file stays as it is.
 * Parts: polling on a virtual clock against the simulator (bench/polling-rows.ts); then, on a dev server of its own
 * (database on tmpfs) with the product's worker as a child process: pipeline wall time, history
 * per pipeline, activity throughput, 1,000 pipelines in flight (the last two figures are also
 * `npm run bench:scale` alone, bench/scale.ts).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findTemporalCli } from '../dev/devserver';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import { measureActivityThroughput } from './activity-throughput';
import { numberArg } from './cli-args';
import { replaceSection, RESULTS_FILE } from './results-file';

const BEGIN = '<!-- report: begin (written by npm run bench) -->';
const END = '<!-- report: end -->';
import { stackImageDir, startStack } from './campaign-stack';
import { measurePipelineTiming } from './pipeline-timing';
import { pollingRows } from './polling-rows';
import { markdownTable, type Row } from './report-table';
import { historyRows, memoryRows, step } from './scale';

async function main(): Promise<void> {
  const argv = process.argv;
  const pipelines = numberArg(argv, 'pipelines', 1_000);
  const began = Date.now();
  const rows: Row[] = [];

  step('polling (virtual clock)');
  rows.push(...(await pollingRows()));
  if (argv.includes('--only') && argv[argv.indexOf('--only') + 1] === 'polling') {
    console.log(`\n${markdownTable(rows)}`);
    return;
  }

  const stack = await startStack();
  const selfieBytes = syntheticSelfiePng(1, 64);
  const dir = stackImageDir(stack);
  const selfie = { path: path.join(dir, 'selfie.png'), dir, bytes: selfieBytes };
  writeFileSync(selfie.path, selfieBytes);
  try {
    step('pipeline wall time');
    const timing = await measurePipelineTiming(stack, selfie);
    const overhead = (ms: number) => `${s(ms)} (+${s(ms - timing.providerMs)})`;
    rows.push({
      figure: `pipeline wall time, 1 selfie × 3 styles, provider processing ${s(timing.providerMs)} (median of ${timing.runs}; + overhead)`,
      product: overhead(timing.pipelineMedianMs),
      baseline: `direct script: ${overhead(timing.directMedianMs)}`,
      target: '-',
    });
    rows.push(...(await historyRows(stack, selfie)));

    step('activity throughput');
    const throughput = await measureActivityThroughput(stack, stack.dir);
    rows.push({
      figure: `provider status calls per second, ${throughput.calls} calls, ${throughput.concurrency} at a time`,
      product: `${throughput.workerCallsPerS.toFixed(0)}/s (activities scheduled by workflows, run by the worker)`,
      baseline: `direct: ${throughput.directCallsPerS.toFixed(0)}/s`,
      target: '-',
    });

    rows.push(...(await memoryRows(stack, selfie, pipelines)));
  } finally {
    await stack.close();
  }

  const table = markdownTable(rows);
  const minutes = ((Date.now() - began) / 60_000).toFixed(0);
  console.log(`\n${table}\n\nWhole run: ${minutes} min.`);
  const missed = rows.filter((row) => row.met === false);
  if (missed.length > 0) console.log(`Missed: ${missed.map((row) => row.figure).join('; ')}`);
  if (argv.includes('--write')) {
    const section = await resultsMarkdown(table, minutes, argv.slice(2), path.dirname(stack.dir));
    replaceSection(BEGIN, END, section);
    console.log(`Written to ${RESULTS_FILE} (its report section).`);
  }
}

async function resultsMarkdown(
  table: string,
  minutes: string,
  args: string[],
  databaseDir: string,
): Promise<string> {
  const cpus = os.cpus();
  let temporal = 'Temporal CLI version unknown';
  try {
    // The same lookup the dev server used ($TEMPORAL_CLI, PATH, .tools/).
    temporal = execFileSync(await findTemporalCli(), ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // Left as unknown: the report is still worth writing.
  }
  return [
    BEGIN,
    '',
    '## The report: polling, pipeline time, history, throughput, memory (`npm run bench`)',
    '',
    `Written by \`${['node dist/bench/report.js', ...args].join(' ')}\` (\`npm run bench\`); every figure below comes from that one run.`,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`,
    `- Node ${process.version}; ${temporal}; dev server database under ${databaseDir}`,
    `- Whole run: ${minutes} min`,
    '',
    table,
    '',
    'How each figure is measured: see the header comments of bench/report.ts and the modules it calls',
    '(bench/simulated-polling.ts, pipeline-timing.ts, pipeline-history.ts, activity-throughput.ts, in-flight.ts).',
    '',
    END,
  ].join('\n');
}

function s(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

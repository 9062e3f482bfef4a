import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_SIMULATOR_PORT } from '@avatar-pipeline/client/config/env-schema';
import { quietTemporalRuntime } from '../demo/quiet-runtime';
import { DemoInterrupted, runDemo, type DemoReport } from '../demo/run-demo';
import { EXIT } from '../../src/cli/exit-codes';
import { reportError } from '../../src/cli/fail';
import { stopSignal } from '../../src/cli/serve-until-signal';
import { printableJson, writeLines } from '../../src/cli/printable';

/** The styles the demo generates unless told otherwise: four that look clearly different. */
const DEMO_STYLES = [3, 5, 7, 12];

interface DemoFlags {
  output: string;
  keep?: boolean;
  json?: boolean;
  styles: number[];
  dbFile: string;
  uiPort?: number;
  uiUrl?: string;
  simulatorPort: number;
  trainingSeconds: number;
  generationSeconds: number;
  avatars: number;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port < 1 || port > 65_535) {
    throw new InvalidArgumentError('must be a port number from 1 to 65535');
  }
  return port;
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 600) {
    throw new InvalidArgumentError('must be a number of seconds from 0 to 600');
  }
  return seconds;
}

function parseStyles(value: string): number[] {
  const ids = value.split(',').map((item) => item.trim());
  if (ids.some((id) => !/^\d+$/.test(id) || Number(id) < 1)) {
    throw new InvalidArgumentError('must be comma-separated style ids, e.g. 3,5,7');
  }
  return ids.map(Number);
}

function parseCount(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value.trim()) || count < 1 || count > 64) {
    throw new InvalidArgumentError('must be a whole number from 1 to 64');
  }
  return count;
}

function parseUrl(value: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(value)) throw new InvalidArgumentError('must be an http(s) URL');
  return value.replace(/\/+$/, '');
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'Run the whole thing locally: Temporal dev server with its Web UI, provider simulator, worker, one pipeline on the sample selfies, and an HTML gallery of the avatars',
    )
    .option('--output <dir>', 'where galleries go (one folder per run)', 'demo-output')
    .option('--keep', 'keep the dev server, simulator and worker running after the gallery, until Ctrl-C')
    .option('--json', 'print one JSON document (workflow id, gallery path, UI link, result) on stdout')
    .option('--styles <ids>', 'style ids to generate', parseStyles, DEMO_STYLES)
    .option(
      '--db-file <file>',
      'SQLite database of a dev server the demo starts',
      path.join('.data', 'temporal', 'dev-server.db'),
    )
    .option(
      '--ui-port <n>',
      'Web UI port of a dev server the demo starts (default: frontend port + 1000)',
      parsePort,
    )
    .option(
      '--ui-url <url>',
      'Web UI of an already running Temporal server, if not at frontend port + 1000',
      parseUrl,
    )
    .option(
      '--simulator-port <n>',
      'provider simulator port (a free one if taken)',
      parsePort,
      DEFAULT_SIMULATOR_PORT,
    )
    .option('--training-seconds <s>', 'how long the simulated training takes', parseSeconds, 4)
    .option('--generation-seconds <s>', 'how long each simulated style takes', parseSeconds, 2.5)
    .option('--avatars <n>', 'avatars per style', parseCount, 8)
    .addHelpText(
      'after',
      [
        '',
        'Temporal: TEMPORAL_ADDRESS (default localhost:7233) is reused when a server answers there, else a dev',
        'server is started on it (installing the Temporal CLI into .tools/ if missing). TEMPORAL_NAMESPACE and',
        'TEMPORAL_TASK_QUEUE apply too. The provider is always the in-process simulator.',
        'Nothing keeps running afterwards unless --keep. Exit codes: 0 done, 1 the pipeline failed, 2 bad input.',
      ].join('\n'),
    )
    .action(async (flags: DemoFlags) => {
      try {
        process.exitCode = await demo(flags);
      } catch (err) {
        if (err instanceof DemoInterrupted) process.exitCode = EXIT.interrupted;
        else reportError(err);
      }
    });
}

async function demo(flags: DemoFlags): Promise<number> {
  const log = (message: string): void => void writeLines(process.stderr, `[demo] ${message}`);
  quietTemporalRuntime();
  const stopRequested = stopSignal().then((signal) => {
    // A second Ctrl-C while stopping ends at once; the dev server dies with this process.
    process.once('SIGINT', () => process.exit(EXIT.interrupted));
    return signal;
  });
  const { report, stopped, kept } = await runDemo(
    {
      outputDir: path.resolve(flags.output),
      keep: flags.keep === true,
      styles: flags.styles,
      dbFile: flags.dbFile,
      ...(flags.uiPort !== undefined ? { uiPort: flags.uiPort } : {}),
      ...(flags.uiUrl !== undefined ? { uiUrl: flags.uiUrl } : {}),
      simulatorPort: flags.simulatorPort,
      trainingMs: Math.round(flags.trainingSeconds * 1000),
      generationMs: Math.round(flags.generationSeconds * 1000),
      avatarsPerOrder: flags.avatars,
      avatarSize: 160,
      timeoutMs: 90_000,
      log,
      progressStream: process.stderr,
    },
    stopRequested,
  );
  if (flags.json) process.stdout.write(printableJson(report));
  else writeLines(process.stdout, describe(report));
  if (kept) {
    writeLines(process.stderr, kept);
    await stopped;
  }
  return report.status === 'INTERRUPTED'
    ? EXIT.interrupted
    : report.status === 'FAILED'
      ? EXIT.failed
      : EXIT.ok;
}

function describe(report: DemoReport): string {
  const took = `${(report.durationMs / 1000).toFixed(1)} s`;
  if (report.status === 'INTERRUPTED') return `Interrupted; ${report.workflowId} was cancelled.`;
  if (report.status === 'FAILED') {
    return [
      `The pipeline failed after ${took}: ${report.error ?? 'unknown error'}`,
      `Temporal UI: ${report.temporalUiLink}`,
      ...consoleLines(report),
    ].join('\n');
  }
  return [
    '',
    `Done in ${took}: ${report.avatarCount} avatars (${report.status}).`,
    `Gallery:     ${report.galleryPath ?? ''}`,
    `Temporal UI: ${report.temporalUiLink}`,
    ...consoleLines(report),
    `Workflow id: ${report.workflowId}`,
  ].join('\n');
}

/** The web console's address, beside the Temporal UI link (its token works while the demo runs: --keep). */
function consoleLines(report: DemoReport): string[] {
  if (!report.console) return [];
  return [
    `Console:     ${report.console.url}#/runs/${encodeURIComponent(report.workflowId)} (API token ${report.console.token})`,
  ];
}

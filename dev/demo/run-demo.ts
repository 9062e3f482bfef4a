import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { connectClient } from '@avatar-pipeline/client/client/connect';
import { loadStarterSettings, type StarterSettings } from '@avatar-pipeline/client/config/starter-settings';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import type { PipelineRequest } from '@avatar-pipeline/client/contracts/pipeline-input';
import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { SIMULATOR_API_KEY } from '@avatar-pipeline/client/config/env-schema';
import { progressViewFor } from '../../src/cli/progress-view';
import { rootMessage } from '../../src/cli/root-message';
import { watchProgress } from '../../src/cli/watch-progress';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { sampleSelfieFiles } from '../../src/samples/sample-selfies';
import { loadCheckWorkerConfig } from '../../src/config/load-config';
import { startDemoConsole, type DemoConsole } from './demo-console';
import { startDemoStack, type DemoStack, type DemoStackOptions } from './demo-stack';
import { workflowUiUrl } from './temporal-ui';
import { writeGallery } from './write-gallery';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import { AvatarPipelineError } from '@avatar-pipeline/client/errors';

/** The stack's own options (dev server, simulator timings), and what the demo does with it. */

/** Status polling against the demo's own quick simulator. */
const DEMO_POLLING = { initialIntervalMs: 500, minIntervalMs: 250, maxIntervalMs: 1_000 };
export interface DemoOptions extends Pick<
  DemoStackOptions,
  | 'dbFile'
  | 'uiPort'
  | 'uiUrl'
  | 'simulatorPort'
  | 'trainingMs'
  | 'generationMs'
  | 'avatarsPerOrder'
  | 'avatarSize'
  | 'log'
> {
  /** Galleries go into `<outputDir>/<workflowId>/`. */
  outputDir: string;
  /** Keep the dev server, simulator and worker running after the gallery, until `untilStopped` resolves. */
  keep: boolean;
  styles: number[];
  /** How long the pipeline may take before the demo gives up on it. */
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** Where the live view (or progress lines) is drawn. */
  progressStream: NodeJS.WriteStream;
}

export interface DemoReport {
  workflowId: string;
  status: 'DONE' | 'PARTIAL' | 'FAILED' | 'INTERRUPTED';
  /** The gallery page (absent when the pipeline did not finish). */
  galleryPath?: string;
  avatarCount: number;
  /** The run in the Temporal Web UI. */
  temporalUiLink: string;
  temporalUiUrl: string;
  /** The web console (the starter API at /console/) and its API token; absent when it could not start. */
  console?: { url: string; token: string };
  namespace: string;
  temporal: { address: string; startedHere: boolean; pid?: number };
  simulator: { url: string; port: number };
  result?: PipelineResult;
  error?: string;
  durationMs: number;
}

export interface DemoOutcome {
  report: DemoReport;
  /** Resolves once everything the demo started has stopped. */
  stopped: Promise<void>;
  /** What keeps running, when kept (--keep). */
  kept?: string;
}

/**
 * One pass of the demo. `stopRequested` resolves on Ctrl-C: before the gallery it interrupts the
 * demo; with `keep`, it ends the stack kept running after it. Whatever the demo started is
 * stopped before this resolves, or (with `keep`) once `stopRequested` resolves; `stopped`
 * resolves then.
 */
export async function runDemo(options: DemoOptions, stopRequested: Promise<unknown>): Promise<DemoOutcome> {
  const interrupted = stopRequested;
  const started = Date.now();
  const { log } = options;
  const loaded = loadStarterSettings(options.env);
  // The gallery is built from the archive, whatever ARCHIVE_AVATARS says.
  const settings = { ...loaded, placement: { ...loaded.placement, archiveAvatars: true } };
  const temporalConfig = settings.temporal;
  const selfies = sampleSelfieFiles();

  const starting = startDemoStack({
    temporal: temporalConfig,
    placement: settings.placement,
    campaigns: settings.campaigns,
    dbFile: options.dbFile,
    ...(options.uiPort !== undefined ? { uiPort: options.uiPort } : {}),
    ...(options.uiUrl !== undefined ? { uiUrl: options.uiUrl } : {}),
    simulatorPort: options.simulatorPort,
    trainingMs: options.trainingMs,
    generationMs: options.generationMs,
    avatarsPerOrder: options.avatarsPerOrder,
    avatarSize: options.avatarSize,
    simulatorStateFile: path.join(path.dirname(path.resolve(options.dbFile)), 'demo-simulator', 'state.json'),
    imageRoots: [path.dirname(selfies[0]!)],
    archiveDir: archiveDirOf(options.outputDir),
    checks: loadCheckWorkerConfig(options.env ?? process.env),
    log,
  });
  const first = await Promise.race([starting, interrupted.then(() => 'interrupted' as const)]);
  if (first === 'interrupted') {
    log('interrupted while starting; stopping what was started');
    await starting.then((stack) => stack.stop()).catch(() => undefined);
    throw new DemoInterrupted();
  }
  const stack: DemoStack = first;
  let report: DemoReport | undefined;
  let webConsole: DemoConsole | undefined;
  const stopAll = async () => {
    await webConsole?.stop().catch(() => undefined);
    await stack.stop();
  };
  try {
    log(
      `Temporal ${stack.temporal.startedHere ? 'dev server started' : 'server reused'} at ${stack.temporal.address} in ${seconds(Date.now() - started)}`,
    );
    if (!stack.uiAnswers)
      log(`the Temporal UI does not answer at ${stack.uiUrl}; pass --ui-url if it is elsewhere`);
    webConsole = await startDemoConsole({
      env: options.env ?? process.env,
      temporalAddress: stack.temporal.address,
      uiUrl: stack.uiUrl,
      providerUrl: stack.simulator.url,
      imageRoots: [path.dirname(selfies[0]!)],
      archiveDir: archiveDirOf(options.outputDir),
    }).catch((err: unknown) => {
      log(`the web console could not start: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    if (webConsole) log(`web console at ${webConsole.url} (API token ${webConsole.token})`);
    const styleNames = await fetchStyleNames(stack.simulator.url);
    report = await runPipeline(options, stack, settings, selfies, styleNames, interrupted, started);
    if (webConsole) report = { ...report, console: { url: webConsole.url, token: webConsole.token } };
  } finally {
    if (!options.keep || report === undefined || report.status === 'INTERRUPTED') {
      await stopAll();
      log('stopped everything the demo started');
    }
  }
  if (!options.keep || report.status === 'INTERRUPTED') return { report, stopped: Promise.resolve() };
  const kept = [
    'The demo stack keeps running (--keep); Ctrl-C stops it.',
    `  Temporal:  ${stack.temporal.address} (UI ${stack.uiUrl})`,
    ...(webConsole ? [`  console:   ${webConsole.url} (API token ${webConsole.token})`] : []),
    `  simulator: ${stack.simulator.url}`,
    `  worker:    task queue "${temporalConfig.taskQueue}"`,
  ].join('\n');
  const stopped = stopRequested.then(async () => {
    log('stopping the demo stack');
    await stopAll();
  });
  return { report, stopped, kept };
}

export class DemoInterrupted extends AvatarPipelineError {
  constructor() {
    super('interrupted');
  }
}

async function runPipeline(
  options: DemoOptions,
  stack: DemoStack,
  settings: StarterSettings,
  selfies: string[],
  styleNames: ReadonlyMap<number, string>,
  interrupted: Promise<unknown>,
  started: number,
): Promise<DemoReport> {
  const temporalConfig = settings.temporal;
  const client = await connectClient({ ...temporalConfig, address: stack.temporal.address });
  try {
    const request: PipelineRequest = {
      images: selfies,
      styles: options.styles,
      gender: 1,
      subjectId: 'demo',
      trainingDeadlineMs: options.timeoutMs,
      generationDeadlineMs: options.timeoutMs,
      polling: DEMO_POLLING,
    };
    if (settings.placement.checks?.selfies) {
      options.log(`checking the ${selfies.length} selfies on the check worker: one face each, one person`);
    }
    // The demo's provider is its own simulator, whose training takes seconds: the demo is the
    // operator here, and bounds polling to that pace rather than to a shared quota's.
    const handle = await startPipeline(client, request, {
      ...settings.placement,
      pollingBounds: { minIntervalMs: DEMO_POLLING.minIntervalMs, maxIntervalMs: DEMO_POLLING.maxIntervalMs },
    });
    if (settings.placement.checks?.selfies) options.log('the selfies passed the checks');
    const temporalUiLink = workflowUiUrl(stack.uiUrl, temporalConfig.namespace, handle.workflowId);
    options.log(`pipeline ${handle.workflowId} started; watch it in the Temporal UI: ${temporalUiLink}`);
    const base = {
      workflowId: handle.workflowId,
      temporalUiLink,
      temporalUiUrl: stack.uiUrl,
      namespace: temporalConfig.namespace,
      temporal: {
        address: stack.temporal.address,
        startedHere: stack.temporal.startedHere,
        ...(stack.temporal.pid !== undefined ? { pid: stack.temporal.pid } : {}),
      },
      simulator: { url: stack.simulator.url, port: stack.simulator.port },
    };

    const watch = watchProgress(
      handle,
      progressViewFor(options.progressStream, { workflowId: handle.workflowId, styleNames }),
    );
    const outcome = await Promise.race([
      handle.result().then(
        (result) => ({ kind: 'done' as const, result }),
        (error: unknown) => ({ kind: 'failed' as const, message: rootMessage(error) }),
      ),
      stack.workerFailure.catch((error: unknown) => ({
        kind: 'failed' as const,
        message: `the worker stopped: ${rootMessage(error)}`,
      })),
      interrupted.then(() => ({ kind: 'interrupted' as const })),
      delay(options.timeoutMs + 30_000, undefined, { ref: false }).then(() => ({
        kind: 'failed' as const,
        message: `the pipeline did not finish within ${seconds(options.timeoutMs + 30_000)}`,
      })),
    ]);
    await watch.stop(outcome.kind === 'done' ? outcome.result : undefined);
    if (outcome.kind === 'interrupted') {
      await handle.cancel().catch(() => undefined);
      return { ...base, status: 'INTERRUPTED', avatarCount: 0, durationMs: Date.now() - started };
    }
    if (outcome.kind === 'failed') {
      return {
        ...base,
        status: 'FAILED',
        avatarCount: 0,
        error: outcome.message,
        durationMs: Date.now() - started,
      };
    }
    logAvatarChecks(outcome.result, options.log);
    const gallery = await writeGallery({
      result: outcome.result,
      outputDir: options.outputDir,
      styleNames,
      temporalUiLink,
      namespace: temporalConfig.namespace,
      providerUrl: stack.simulator.url,
      archive: new FsBlobStore(archiveDirOf(options.outputDir)),
    });
    return {
      ...base,
      status: outcome.result.status,
      galleryPath: gallery.page,
      avatarCount: gallery.avatarCount,
      result: outcome.result,
      durationMs: Date.now() - started,
    };
  } finally {
    await client.connection.close();
  }
}

async function fetchStyleNames(providerUrl: string): Promise<Map<number, string>> {
  const provider = new ProviderClient({ baseUrl: providerUrl, apiKey: SIMULATOR_API_KEY, timeoutMs: 5_000 });
  return new Map((await provider.listStyles()).map((style) => [style.id, style.name]));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The demo's blob store: avatars are archived there as they are produced, and the gallery is drawn from it. */
function archiveDirOf(outputDir: string): string {
  return path.resolve(outputDir, '.archive');
}

/** What the avatar checks said of the run's avatars, when they ran (AVATAR_CHECKS). */
function logAvatarChecks(result: PipelineResult, log: (line: string) => void): void {
  const avatars = result.generations.flatMap((g) => g.avatars);
  const checked = avatars.filter((a) => a.check !== undefined);
  if (checked.length === 0) return;
  const failed = checked.filter((a) => a.check?.passed === false);
  if (failed.length === 0) {
    log(
      `the ${checked.length} avatars passed their checks on the check worker: the person's face, nothing unsafe`,
    );
    return;
  }
  log(
    `${failed.length} of ${checked.length} avatars failed their checks: ${failed.map((a) => `${a.avatarId} ${a.check?.reasons.join('; ')}`).join(', ')}`,
  );
}

/**
 * Benchmark: a campaign of N subjects × 3 styles against the provider simulator with fast
 * timings and a quota of R requests per second (the simulator answers 429 beyond it), beside a
 * naive Promise.all over the provider client and a sequential loop, in one run.
 *
 *   npm run bench:campaign                          (builds, then runs dist/bench/campaign.js)
 *   node dist/bench/campaign.js --subjects 1000 --rps 25 --max-in-flight 200 --sequential-budget 60 [--campaign-only]
 *
 * The campaign runs on its own Temporal dev server with the product's worker as a child process
 * (PROVIDER_MAX_RPS = R on its provider task queue); the baselines call the provider directly,
 * retrying each 429 after its Retry-After. The lower bound of the makespan is the quota's:
 * the fewest requests the work needs (one status call per order, two avatar pages per style)
 * divided by R, plus one subject's training and generation time.
 * The sequential loop runs for a time budget and its makespan is projected from its pace.
 */
import { setMaxListeners } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startCampaign } from '../src/client/campaigns';
import type { CampaignSubject } from '../src/contracts/campaign';
import { ProviderClient } from '../src/provider/client';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import type { StartSimulatorOptions } from '../src/simulator';
import { runSubjectDirect, type DirectSubject } from './campaign-direct';
import { freshSimulator, RateSampler, startStack, startWorkerProcess, type Stack } from './campaign-stack';

export const STYLES = [3, 5, 7];
export const TRAINING_MS = 300;
export const GENERATION_MS = 300;
/** Requests a subject needs at the least: create, upload, select, run, one status call; per style create, run, one status call, two avatar pages. */
const MIN_REQUESTS_PER_SUBJECT = 5 + STYLES.length * 5;
const POLLING = { initialIntervalMs: 400, minIntervalMs: 200, maxIntervalMs: 1_000, backoffCoefficient: 1.5 };

export interface Args {
  subjects: number;
  rps: number;
  maxInFlight: number;
  sequentialBudgetS: number;
  naiveBudgetS: number;
  skipBaselines: boolean;
}

export interface Result {
  approach: string;
  done: number;
  total: number;
  makespanS: number;
  projected?: boolean;
  requests: number;
  limited: number;
  acceptedRps: number;
  steadyRps?: number;
  peakRssMb?: number;
  note?: string;
}

/** `--name <number>` from the command line, or the fallback. */
export function numberArg(argv: string[], name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? Number(argv[i + 1]) : fallback;
}

export function parseArgs(argv: string[]): Args {
  const value = (name: string, fallback: number) => numberArg(argv, name, fallback);
  return {
    subjects: value('subjects', 1000),
    rps: value('rps', 25),
    maxInFlight: value('max-in-flight', 200),
    sequentialBudgetS: value('sequential-budget', 60),
    naiveBudgetS: value('naive-budget', 900),
    skipBaselines: argv.includes('--campaign-only'),
  };
}

function simulatorOptions(rps: number): StartSimulatorOptions {
  return {
    progression: { mode: 'wall', trainingMs: TRAINING_MS, generationMs: GENERATION_MS },
    // Four avatars on a 0-based first page: two page requests per style (the page, then an empty one).
    avatarsPerOrder: 4,
    pageSize: 8,
    firstPage: 0,
    rateLimit: { requestsPerSecond: rps },
  };
}

export async function runCampaign(stack: Stack, args: Args, selfie: string): Promise<Result> {
  const sim = await freshSimulator(simulatorOptions(args.rps));
  const taskQueue = `bench-${Date.now()}`;
  const queues = { pipeline: taskQueue, provider: `${taskQueue}-provider` };
  const manifestDir = path.join(stack.dir, 'campaigns');
  const worker = await startWorkerProcess(
    stack,
    {
      TEMPORAL_ADDRESS: stack.server.address,
      TEMPORAL_NAMESPACE: stack.server.namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PROVIDER_TASK_QUEUE: queues.provider,
      PROVIDER_BASE_URL: sim.url,
      PROVIDER_API_KEY: 'sim-key',
      PROVIDER_MAX_RPS: String(args.rps),
      IMAGE_ROOTS: path.dirname(selfie),
      CAMPAIGN_DIR: manifestDir,
      WORKER_MAX_CONCURRENT_ACTIVITIES: '200',
      WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '50',
      WORKER_MAX_CACHED_WORKFLOWS: '2000',
      LOG_LEVEL: 'WARN',
    },
    queues,
  );
  const subjects: CampaignSubject[] = Array.from({ length: args.subjects }, (_, i) => ({
    subjectId: `s${String(i + 1).padStart(5, '0')}`,
    gender: ((i % 2) + 1) as 1 | 2,
    styles: STYLES,
    images: [selfie],
    mainImageIndex: 0,
    row: i + 2,
  }));
  const sampler = new RateSampler(sim);
  try {
    sampler.start();
    const started = Date.now();
    const campaign = await startCampaign(stack.client, subjects, {
      taskQueue,
      providerTaskQueue: queues.provider,
      manifestDir,
      options: { maxInFlight: args.maxInFlight, polling: POLLING },
    });
    const progress = setInterval(() => {
      void campaign
        .progress()
        .then((p) =>
          process.stderr.write(
            `  campaign: ${p.counts.done}/${p.total} done, ${p.counts.running} running, run ${p.run}, ${sim.stats().requests.total} requests\n`,
          ),
        )
        .catch(() => undefined);
    }, 15_000);
    const summary = await campaign.result().finally(() => clearInterval(progress));
    const makespanS = (Date.now() - started) / 1000;
    sampler.stop();
    const stats = sim.stats();
    const models = stats.totals.modelsCreated;
    const orders = stats.totals.generationOrdersCreated;
    return {
      approach: 'campaign (Temporal)',
      done: summary.subjects.filter((s) => s.status === 'DONE').length,
      total: args.subjects,
      makespanS,
      requests: stats.requests.total,
      limited: stats.rateLimited,
      acceptedRps: (stats.requests.total - stats.rateLimited) / makespanS,
      steadyRps: sampler.acceptedRate(0.1, 0.9),
      peakRssMb: worker.peakRss() / 1024 / 1024,
      note: `${models} models, ${orders} generation orders (expected ${args.subjects} and ${args.subjects * STYLES.length}); ${summary.subjects.filter((s) => (s.attempts ?? 1) > 1).length} retried`,
    };
  } finally {
    await worker.stop();
    await sim.stop();
  }
}

export async function runNaive(args: Args, image: Buffer): Promise<Result> {
  const sim = await freshSimulator(simulatorOptions(args.rps));
  const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
  const abort = new AbortController();
  // Every waiting call listens on the one signal.
  setMaxListeners(0, abort.signal);
  const budget = setTimeout(() => abort.abort(), args.naiveBudgetS * 1000);
  const sampler = new RateSampler(sim);
  let done = 0;
  const failures: string[] = [];
  try {
    sampler.start();
    const started = Date.now();
    const subject: DirectSubject = { styles: STYLES, gender: 1, image };
    await Promise.all(
      Array.from({ length: args.subjects }, () =>
        runSubjectDirect(provider, subject, {
          firstPollMs: POLLING.initialIntervalMs,
          pollMs: 200,
          signal: abort.signal,
        })
          .then(() => void done++)
          .catch((err: unknown) => void failures.push(err instanceof Error ? err.message : String(err))),
      ),
    );
    const makespanS = (Date.now() - started) / 1000;
    sampler.stop();
    const stats = sim.stats();
    return {
      approach: 'naive Promise.all',
      done,
      total: args.subjects,
      makespanS,
      requests: stats.requests.total,
      limited: stats.rateLimited,
      acceptedRps: (stats.requests.total - stats.rateLimited) / makespanS,
      steadyRps: sampler.acceptedRate(0.1, 0.9),
      ...(abort.signal.aborted || failures.length > 0
        ? {
            note: [
              abort.signal.aborted ? `stopped at the ${args.naiveBudgetS} s budget` : '',
              failures.length > 0 ? `${failures.length} subject(s) failed, first: ${failures[0]}` : '',
            ]
              .filter(Boolean)
              .join('; '),
          }
        : {}),
    };
  } finally {
    clearTimeout(budget);
    await sim.stop();
  }
}

export async function runSequential(args: Args, image: Buffer): Promise<Result> {
  const sim = await freshSimulator(simulatorOptions(args.rps));
  const provider = new ProviderClient({ baseUrl: sim.url, apiKey: 'sim-key', timeoutMs: 30_000 });
  const deadline = Date.now() + args.sequentialBudgetS * 1000;
  const started = Date.now();
  let done = 0;
  try {
    while (done < args.subjects && Date.now() < deadline) {
      await runSubjectDirect(
        provider,
        { styles: STYLES, gender: 1, image },
        { firstPollMs: POLLING.initialIntervalMs, pollMs: 200 },
      );
      done++;
    }
    const elapsedS = (Date.now() - started) / 1000;
    const stats = sim.stats();
    const finished = done === args.subjects;
    return {
      approach: 'sequential loop',
      done,
      total: args.subjects,
      makespanS: finished ? elapsedS : (elapsedS / Math.max(1, done)) * args.subjects,
      projected: !finished,
      requests: stats.requests.total,
      limited: stats.rateLimited,
      acceptedRps: (stats.requests.total - stats.rateLimited) / elapsedS,
      ...(finished
        ? {}
        : { note: `${done} subjects in ${elapsedS.toFixed(0)} s, makespan projected from that pace` }),
    };
  } finally {
    await sim.stop();
  }
}

function report(results: Result[], args: Args, lowerBoundS: number): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const header = [
    'approach',
    'done',
    'makespan',
    'vs bound',
    'requests',
    '429 share',
    'accepted rps (of R)',
    'steady rps',
    'peak worker RSS',
  ];
  const rows = results.map((r) => [
    r.approach,
    `${r.done}/${r.total}`,
    `${r.projected ? '~' : ''}${r.makespanS.toFixed(1)} s`,
    `${(r.makespanS / lowerBoundS).toFixed(2)}x`,
    String(r.requests),
    pct(r.requests ? r.limited / r.requests : 0),
    `${r.acceptedRps.toFixed(1)} (${pct(r.acceptedRps / args.rps)})`,
    r.steadyRps === undefined ? '-' : r.steadyRps.toFixed(1),
    r.peakRssMb === undefined ? '-' : `${r.peakRssMb.toFixed(0)} MB`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  for (const r of results) if (r.note) out.push(`  ${r.approach}: ${r.note}`);
  return out.join('\n');
}

/** The quota's lower bound of the makespan: the fewest requests the work needs over R, plus one subject's processing. */
export function campaignLowerBoundS(args: Pick<Args, 'subjects' | 'rps'>): number {
  return (args.subjects * MIN_REQUESTS_PER_SUBJECT) / args.rps + (TRAINING_MS + GENERATION_MS) / 1000;
}

/** The campaign targets of the campaign issue, met or not. */
export function campaignTargets(campaign: Result, args: Args): (readonly [string, boolean])[] {
  const lowerBoundS = campaignLowerBoundS(args);
  return [
    [`all ${args.subjects} done`, campaign.done === args.subjects],
    ['accepted request rate ≥ 90% of R', campaign.acceptedRps >= 0.9 * args.rps],
    ['429 answers ≤ 1% of requests', campaign.limited <= 0.01 * campaign.requests],
    ['makespan ≤ 1.15 × lower bound', campaign.makespanS <= 1.15 * lowerBoundS],
  ];
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv);
  const lowerBoundS = campaignLowerBoundS(args);
  console.log(
    `Campaign benchmark: ${args.subjects} subjects × ${STYLES.length} styles, quota R = ${args.rps} requests/s ` +
      `(simulator: 429 beyond it), training ${TRAINING_MS} ms, generation ${GENERATION_MS} ms.\n` +
      `Lower bound: ${args.subjects} × ${MIN_REQUESTS_PER_SUBJECT} requests / R + ${(TRAINING_MS + GENERATION_MS) / 1000} s = ${lowerBoundS.toFixed(1)} s.\n`,
  );
  const stack = await startStack();
  const selfie = path.join(stack.dir, 'selfie.png');
  const image = syntheticSelfiePng(1, 64);
  writeFileSync(selfie, image);
  const results: Result[] = [];
  try {
    process.stderr.write('campaign…\n');
    results.push(await runCampaign(stack, args, selfie));
    if (!args.skipBaselines) {
      process.stderr.write('naive Promise.all…\n');
      results.push(await runNaive(args, image));
      process.stderr.write(`sequential loop (${args.sequentialBudgetS} s budget)…\n`);
      results.push(await runSequential(args, image));
    }
  } finally {
    await stack.close();
  }
  console.log(report(results, args, lowerBoundS));
  console.log('\nCampaign targets:');
  for (const [name, met] of campaignTargets(results[0]!, args))
    console.log(`  ${met ? 'met    ' : 'MISSED '} ${name}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

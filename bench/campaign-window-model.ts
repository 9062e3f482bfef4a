/**
 * The auto in-flight window against a queue model of the provider: no Temporal, no simulator, no
 * clock, so it runs in a second and gives the same figures on a busy machine. It checks the
 * controller's dynamics (how fast it reaches R × T / K, whether it oscillates into deep backlogs)
 * before the real benchmark (bench/campaign.ts) measures the product.
 *
 *   node dist/bench/campaign-window-model.js [--subjects 1000] [--rps 20] [--training 90]
 *     [--generation 20] [--sample 10] [--controller path/to/module.js]
 *
 * The model, at full scale (seconds): one provider queue served at R requests/s in arrival order
 * (the server's rate limit on the provider task queue); each subject is the pipeline's request
 * script for 2 styles with the default polling (16 requests: create, upload, select, run; a status
 * read 5 s into the training and one at its end; create and run per style; an order-list read 5 s
 * into the generation and one at its end; two avatar pages per style), each step waiting for the
 * previous one's answers, so a backlog delays the subjects as it does in the product. The campaign
 * starts a subject whenever fewer than the window are in flight and samples the controller every
 * `--sample` seconds while the window limits it, with the figures the activity reads.
 * `--controller` loads another build of workflows/campaign/window-controller.ts to compare.
 */
import path from 'node:path';
import * as product from '../workflows/campaign/window-controller';
import type {
  WindowSample,
  WindowState,
  WindowTuning,
} from '@avatar-pipeline/client/contracts/campaign/window-state';
import { numberArg } from './cli-args';

interface Controller {
  DEFAULT_WINDOW_TUNING: WindowTuning;
  initialWindow(tuning?: WindowTuning): WindowState;
  nextWindow(state: WindowState, sample: WindowSample, tuning?: WindowTuning): WindowState;
}

/** One step of a subject: requests sent together once the previous step answered, after a wait. */
interface Step {
  requests: number;
  /** Seconds after the previous step's answers, or after the last run call's when `fromRun`. */
  afterS: number;
  fromRun?: boolean;
  /** Marks a run call: later `fromRun` steps wait from its answer. */
  run?: boolean;
}

function subjectScript(trainingS: number, generationS: number, styles = 2): Step[] {
  return [
    { requests: 1, afterS: 0 }, // create the model
    { requests: 1, afterS: 0 }, // upload the selfie
    { requests: 1, afterS: 0 }, // select it
    { requests: 1, afterS: 0, run: true }, // run the training
    { requests: 1, afterS: 5, fromRun: true }, // status: progress, implies the finish
    { requests: 1, afterS: trainingS, fromRun: true }, // status at the finish: DONE
    { requests: styles, afterS: 0 }, // create an order per style
    { requests: styles, afterS: 0, run: true }, // run them
    { requests: 1, afterS: 5, fromRun: true }, // order list: progress
    { requests: 1, afterS: generationS, fromRun: true }, // order list at the finish: DONE
    { requests: styles, afterS: 0 }, // avatar page per style
    { requests: styles, afterS: 0 }, // the empty page that ends each walk
  ];
}

export interface ModelOptions {
  subjects: number;
  rps: number;
  trainingS: number;
  generationS: number;
  sampleS: number;
}

export interface ModelResult {
  makespanS: number;
  /** Served requests per second over the middle 10–90% of the run, as a share of R. */
  steadyShare: number;
  /** Backlog age, sampled every second over the middle of the run. */
  meanBacklogS: number;
  p95BacklogS: number;
  windowRange: [number, number];
  inFlightRange: [number, number];
  /** The window every 50 s, with its reason: the trajectory. */
  trace: string[];
}

interface Subject {
  step: number;
  /** Answers still awaited for the current step. */
  awaiting: number;
  /** When the next step is due (s), when waiting on a timer. */
  dueAt: number | undefined;
  lastAnswerAt: number;
  lastRunAnswerAt: number;
}

const DT = 0.05;

export function simulateWindow(options: ModelOptions, controller: Controller = product): ModelResult {
  const script = subjectScript(options.trainingS, options.generationS);
  const tuning = { ...controller.DEFAULT_WINDOW_TUNING };
  let state = controller.initialWindow(tuning);
  const queue: { at: number; subject: Subject }[] = [];
  let head = 0;
  const running = new Set<Subject>();
  let started = 0;
  let ended = 0;
  let tokens = 0;
  let served = 0;
  let servedAtSample = 0;
  let endedAtSample = 0;
  let lastSampleAt = 0;
  let nextSampleAt: number | undefined;
  const servedPerSecond: number[] = [];
  const backlogPerSecond: number[] = [];
  const windows: number[] = [];
  const inFlight: number[] = [];
  const trace: string[] = [];

  const send = (subject: Subject, now: number) => {
    const step = script[subject.step]!;
    subject.awaiting = step.requests;
    subject.dueAt = undefined;
    for (let i = 0; i < step.requests; i++) queue.push({ at: now, subject });
  };
  const schedule = (subject: Subject, now: number) => {
    const step = script[subject.step]!;
    const due = (step.fromRun ? subject.lastRunAnswerAt : subject.lastAnswerAt) + step.afterS;
    if (due <= now) send(subject, now);
    else subject.dueAt = due;
  };

  let now = 0;
  for (let tick = 0; ended < options.subjects; tick++) {
    now = tick * DT;
    while (started < options.subjects && running.size < state.size) {
      const subject: Subject = {
        step: 0,
        awaiting: 0,
        dueAt: undefined,
        lastAnswerAt: now,
        lastRunAnswerAt: now,
      };
      running.add(subject);
      started++;
      send(subject, now);
    }
    for (const subject of running)
      if (subject.dueAt !== undefined && subject.dueAt <= now) send(subject, now);
    // The server's rate limit: R tasks a second, a burst of at most one second's worth.
    tokens = Math.min(options.rps, tokens + options.rps * DT);
    while (tokens >= 1 && head < queue.length) {
      tokens--;
      served++;
      const { subject } = queue[head++]!;
      if (--subject.awaiting > 0) continue;
      subject.lastAnswerAt = now;
      if (script[subject.step]!.run) subject.lastRunAnswerAt = now;
      subject.step++;
      if (subject.step === script.length) {
        running.delete(subject);
        ended++;
      } else schedule(subject, now);
    }
    if (head > 10_000) {
      queue.splice(0, head);
      head = 0;
    }
    // The campaign's sampler: while the window limits it, every sampleS seconds.
    const limits = started < options.subjects && running.size >= 0.9 * state.size;
    if (!limits) nextSampleAt = undefined;
    else if (nextSampleAt === undefined) nextSampleAt = now + options.sampleS;
    else if (now >= nextSampleAt) {
      const backlogCount = queue.length - head;
      state = controller.nextWindow(
        state,
        {
          backlogCount,
          backlogAgeMs: backlogCount > 0 ? Math.round((now - queue[head]!.at) * 1000) : 0,
          requests: served - servedAtSample,
          rateLimited: 0,
          errors: 0,
          completions: ended - endedAtSample,
          inFlight: running.size,
          waiting: options.subjects - started,
          elapsedMs: Math.round((now - lastSampleAt) * 1000),
          quotaRps: options.rps,
        },
        tuning,
      );
      servedAtSample = served;
      endedAtSample = ended;
      lastSampleAt = now;
      nextSampleAt = now + options.sampleS;
    }
    if (tick % Math.round(1 / DT) === 0) {
      servedPerSecond.push(served);
      backlogPerSecond.push(queue.length > head ? now - queue[head]!.at : 0);
      windows.push(state.size);
      inFlight.push(running.size);
      if (tick % Math.round(50 / DT) === 0)
        trace.push(
          `${now.toFixed(0)} s: window ${state.size} (${state.reason}), in flight ${running.size}, backlog ${(queue.length - head).toString()}`,
        );
    }
  }
  const seconds = servedPerSecond.length;
  const from = Math.floor(seconds * 0.1);
  const to = Math.floor(seconds * 0.9);
  const middle = backlogPerSecond.slice(from, to).sort((a, b) => a - b);
  const range = (xs: number[]): [number, number] => [Math.min(...xs), Math.max(...xs)];
  return {
    makespanS: now,
    steadyShare: (servedPerSecond[to]! - servedPerSecond[from]!) / (to - from) / options.rps,
    meanBacklogS: middle.reduce((a, b) => a + b, 0) / Math.max(1, middle.length),
    p95BacklogS: middle[Math.floor(middle.length * 0.95)] ?? 0,
    windowRange: range(windows.slice(from, to)),
    inFlightRange: range(inFlight.slice(from, to)),
    trace,
  };
}

async function main(): Promise<void> {
  const argv = process.argv;
  const options: ModelOptions = {
    subjects: numberArg(argv, 'subjects', 1000),
    rps: numberArg(argv, 'rps', 20),
    trainingS: numberArg(argv, 'training', 90),
    generationS: numberArg(argv, 'generation', 20),
    sampleS: numberArg(argv, 'sample', 10),
  };
  const at = argv.indexOf('--controller');
  const controller = at >= 0 ? ((await import(path.resolve(argv[at + 1]!))) as Controller) : product;
  const result = simulateWindow(options, controller);
  const k = subjectScript(options.trainingS, options.generationS).reduce((n, s) => n + s.requests, 0);
  const bound = Math.max((options.subjects * k) / options.rps, options.trainingS + options.generationS);
  console.log(
    `Queue model: ${options.subjects} subjects × 2 styles, ${k} requests each, training ${options.trainingS} s, ` +
      `generation ${options.generationS} s, R = ${options.rps}/s, a sample every ${options.sampleS} s` +
      (at >= 0 ? `, controller ${argv[at + 1]}` : ''),
  );
  console.log(
    `makespan ${result.makespanS.toFixed(0)} s (quota bound ${bound.toFixed(0)} s, ${(result.makespanS / bound).toFixed(2)}x); ` +
      `steady served ${(result.steadyShare * 100).toFixed(1)}% of R; backlog age mean ${result.meanBacklogS.toFixed(1)} s, ` +
      `p95 ${result.p95BacklogS.toFixed(1)} s; window ${result.windowRange.join('-')}, in flight ${result.inFlightRange.join('-')} (middle 10-90%)`,
  );
  for (const line of result.trace) console.log(`  ${line}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

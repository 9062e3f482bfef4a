import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_SIMULATOR_PORT, SIMULATOR_API_KEY } from '@avatar-pipeline/client/config/env-schema';
import { endpointNameSchema } from '@avatar-pipeline/client/provider/endpoints';
import {
  MAX_AVATARS_PER_ORDER,
  MAX_PAGE_SIZE,
  simulatorOptionsSchema,
  type ResolvedSimulatorOptions,
  type SimulatorOptions,
} from '../../simulator/options';

/** What commander hands the action: every flag already converted by its parser below. */
export interface SimulatorFlags {
  port: number;
  host: string;
  apiKey: string;
  dialect: 'contract' | 'variant';
  basePath: string;
  publicOrigin?: string;
  progression?: 'wall' | 'calls';
  trainingMs?: number;
  generationMs?: number;
  trainingCalls?: number;
  generationCalls?: number;
  progress: boolean;
  trainingOutcome?: 'DONE' | 'ERROR';
  failStyles?: number[];
  minImages?: number;
  maxImages?: number;
  maxImageBytes?: number;
  firstPage?: 0 | 1;
  pageSize?: number;
  avatarsPerOrder?: number;
  pageBeforeFirst?: 'empty' | 'error';
  avatarSize?: number;
  fault5xx?: number;
  htmlErrorShare?: number;
  emptyErrorShare?: number;
  loseResponse?: number;
  malformedJson?: number;
  slow?: number;
  slowMs?: number;
  rateLimit?: number;
  rateBurst?: number;
  retryAfter?: number;
  faultEndpoints?: string[];
  seed?: number;
  stateFile?: string;
}

function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || n < min || n > max) {
      throw new InvalidArgumentError(
        `must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ' up'}.`,
      );
    }
    return n;
  };
}

function rate(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError('must be a number between 0 and 1.');
  }
  return n;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('must be a number above 0.');
  return n;
}

function idList(value: string): number[] {
  const ids = value.split(',').map((part) => part.trim());
  if (ids.some((id) => !/^\d+$/.test(id)))
    throw new InvalidArgumentError('must be comma-separated integer ids, e.g. 3,7.');
  return ids.map(Number);
}

function endpointList(value: string): string[] {
  const names = value.split(',').map((part) => part.trim());
  const unknown = names.filter((name) => !endpointNameSchema.safeParse(name).success);
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown endpoint ${unknown.join(', ')}; known: ${endpointNameSchema.options.join(', ')}.`,
    );
  }
  return names;
}

/** Every flag of `avatar-pipeline simulator`, with its help text, parser and default. */
export function simulatorFlagOptions(): Option[] {
  return [
    new Option('--port <n>', 'port to listen on (0 picks a free one)')
      .default(DEFAULT_SIMULATOR_PORT)
      .argParser(wholeNumber(0, 65535)),
    new Option('--host <host>', 'interface to listen on').default('127.0.0.1'),
    new Option('--api-key <key>', 'API key clients must send as "Authorization: Bearer <key>"')
      .env('PROVIDER_API_KEY')
      .default(SIMULATOR_API_KEY),
    new Option(
      '--dialect <dialect>',
      "response shapes: the spec's (contract) or the real service's (variant)",
    )
      .choices(['contract', 'variant'])
      .default('contract'),
    new Option('--base-path <path>', 'path prefix of every endpoint, e.g. /rest/api').default(''),
    new Option('--public-origin <url>', 'origin written into image URLs (default: the Host the client used)'),
    new Option(
      '--progression <mode>',
      'wall: orders finish after a time; calls: after N status calls',
    ).choices(['wall', 'calls']),
    new Option('--training-ms <n>', 'wall mode: training time in ms (default 5000)').argParser(
      wholeNumber(0),
    ),
    new Option('--generation-ms <n>', 'wall mode: generation time in ms (default 3000)').argParser(
      wholeNumber(0),
    ),
    new Option('--training-calls <n>', 'calls mode: status calls until training ends (default 3)').argParser(
      wholeNumber(1),
    ),
    new Option(
      '--generation-calls <n>',
      'calls mode: status calls until generation ends (default 2)',
    ).argParser(wholeNumber(1)),
    new Option('--no-progress', 'leave progress out of status answers'),
    new Option('--training-outcome <status>', 'how training ends (default DONE)').choices(['DONE', 'ERROR']),
    new Option('--fail-styles <ids>', 'generation orders with any of these style ids end in ERROR').argParser(
      idList,
    ),
    new Option('--min-images <n>', 'training images a model needs before it can run (default 1)').argParser(
      wholeNumber(0),
    ),
    new Option('--max-images <n>', 'training images a model may have (default 30)').argParser(wholeNumber(1)),
    new Option('--max-image-bytes <n>', 'largest selfie accepted, in bytes (default 10 MiB)').argParser(
      wholeNumber(1),
    ),
    new Option('--first-page <n>', 'index of the first avatar page: 0 or 1 (default 1)').argParser(
      wholeNumber(0, 1),
    ),
    new Option('--page-size <n>', 'avatars per page (default 4)').argParser(wholeNumber(1, MAX_PAGE_SIZE)),
    new Option('--avatars-per-order <n>', 'avatars a generation order produces (default 8)').argParser(
      wholeNumber(0, MAX_AVATARS_PER_ORDER),
    ),
    new Option(
      '--page-before-first <answer>',
      'a page index below the first answers empty or 404 (default empty)',
    ).choices(['empty', 'error']),
    new Option('--avatar-size <px>', 'edge of generated avatar images (default 128)').argParser(
      wholeNumber(16, 1024),
    ),
    new Option('--fault-5xx <rate>', 'share of requests answered 500/502/503 (0..1)').argParser(rate),
    new Option(
      '--html-error-share <rate>',
      'share of 5xx faults with an HTML gateway page (default 0.3)',
    ).argParser(rate),
    new Option(
      '--empty-error-share <rate>',
      'share of 5xx faults with an empty body (default 0.1)',
    ).argParser(rate),
    new Option(
      '--lose-response <rate>',
      'share of writes committed whose answer is then lost (0..1)',
    ).argParser(rate),
    new Option('--malformed-json <rate>', 'share of successes sent as truncated JSON (0..1)').argParser(rate),
    new Option('--slow <rate>', 'share of requests answered late (0..1)').argParser(rate),
    new Option('--slow-ms <n>', 'delay of a late answer in ms (default 2000)').argParser(wholeNumber(0)),
    new Option('--rate-limit <rps>', 'requests per second before answering 429').argParser(positiveNumber),
    new Option('--rate-burst <n>', 'requests allowed at once (default: the rate)').argParser(wholeNumber(1)),
    new Option('--retry-after <seconds>', 'fixed Retry-After of 429 answers').argParser(wholeNumber(1)),
    new Option('--fault-endpoints <names>', 'limit faults to these endpoints (comma-separated)').argParser(
      endpointList,
    ),
    new Option('--seed <n>', 'seed of the fault dice (default 1)').argParser(
      wholeNumber(-2147483648, 2147483647),
    ),
    new Option('--state-file <path>', 'save state here after every change and load it at start'),
  ];
}

/** The flag that sets each option, so a validation message names what the user typed. */
const FLAG_OF_OPTION: Readonly<Record<string, string>> = {
  apiKey: '--api-key',
  basePath: '--base-path',
  publicOrigin: '--public-origin',
  progression: '--progression',
  'progression.trainingMs': '--training-ms',
  'progression.generationMs': '--generation-ms',
  'progression.trainingCalls': '--training-calls',
  'progression.generationCalls': '--generation-calls',
  emptyErrorShare: '--empty-error-share',
  stateFile: '--state-file',
};

function flagForOptionPath(path: readonly PropertyKey[]): string {
  const key = path.map(String).join('.');
  return (
    FLAG_OF_OPTION[key] ?? `--${String(path[0] ?? 'options').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
  );
}

function progressionFrom(flags: SimulatorFlags): SimulatorOptions['progression'] {
  const callsGiven = flags.trainingCalls !== undefined || flags.generationCalls !== undefined;
  const mode = flags.progression ?? (callsGiven ? 'calls' : 'wall');
  if (mode === 'calls')
    return { mode, trainingCalls: flags.trainingCalls, generationCalls: flags.generationCalls };
  return { mode, trainingMs: flags.trainingMs, generationMs: flags.generationMs };
}

export type FlagsResult = { ok: true; options: ResolvedSimulatorOptions } | { ok: false; problems: string[] };

/** Turns flags into simulator options, refusing contradictions the parsers alone cannot see. */
export function simulatorOptionsFromFlags(flags: SimulatorFlags): FlagsResult {
  const problems: string[] = [];
  const progression = progressionFrom(flags);
  if (
    progression?.mode === 'wall' &&
    (flags.trainingCalls !== undefined || flags.generationCalls !== undefined)
  ) {
    problems.push('--training-calls/--generation-calls: only apply with --progression calls');
  }
  if (progression?.mode === 'calls' && (flags.trainingMs !== undefined || flags.generationMs !== undefined)) {
    problems.push('--training-ms/--generation-ms: only apply with --progression wall');
  }
  if (flags.rateLimit === undefined && (flags.rateBurst !== undefined || flags.retryAfter !== undefined)) {
    problems.push('--rate-burst/--retry-after: only apply with --rate-limit');
  }
  const input: SimulatorOptions = {
    apiKey: flags.apiKey,
    dialect: flags.dialect,
    basePath: flags.basePath,
    publicOrigin: flags.publicOrigin ?? null,
    progression,
    reportProgress: flags.progress,
    trainingOutcome: flags.trainingOutcome,
    failStyles: flags.failStyles,
    minTrainingImages: flags.minImages,
    maxTrainingImages: flags.maxImages,
    maxImageBytes: flags.maxImageBytes,
    firstPage: flags.firstPage,
    pageSize: flags.pageSize,
    avatarsPerOrder: flags.avatarsPerOrder,
    pageBeforeFirst: flags.pageBeforeFirst,
    avatarSize: flags.avatarSize,
    fail5xxRate: flags.fault5xx,
    htmlErrorShare: flags.htmlErrorShare,
    emptyErrorShare: flags.emptyErrorShare,
    loseResponseRate: flags.loseResponse,
    malformedJsonRate: flags.malformedJson,
    slowRate: flags.slow,
    slowMs: flags.slowMs,
    rateLimit:
      flags.rateLimit === undefined
        ? null
        : { requestsPerSecond: flags.rateLimit, burst: flags.rateBurst, retryAfterSeconds: flags.retryAfter },
    faultEndpoints: (flags.faultEndpoints as SimulatorOptions['faultEndpoints']) ?? null,
    seed: flags.seed,
    stateFile: flags.stateFile ?? null,
  };
  const parsed = simulatorOptionsSchema.safeParse(input);
  if (!parsed.success) {
    problems.push(
      ...parsed.error.issues.map((issue) => `${flagForOptionPath(issue.path)}: ${issue.message}`),
    );
  }
  return problems.length > 0 || !parsed.success
    ? { ok: false, problems }
    : { ok: true, options: parsed.data };
}

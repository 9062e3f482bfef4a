import { resolve } from 'node:path';
import { MAX_POLL_INTERVAL_MS } from '../contracts/limits';
import type { PollingBounds } from '../contracts/polling-bounds';
import { blobStoreDirs, overlapProblems } from './blob-store-dirs';
import { ConfigError } from './config-error';
import { envSchema, type Env } from './env-schema';
import { parseEnvOf } from './parse-env';
import { placementFrom, type RunPlacement } from './run-placement';
import { temporalAccess, type TemporalAccess } from './temporal-access';

/** Where the pipelines run and how to reach the cluster; optional parts are absent when not configured. */
export type TemporalConfig = { taskQueue: string } & TemporalAccess;

/**
 * What starting and watching pipelines and campaigns needs from the environment (the API, the CLI,
 * the client package); no provider settings, those are the workers'. Workers resolve the same values
 * through loadConfig, which builds on this, so starters and workers agree on every queue and directory.
 */
export interface StarterSettings {
  temporal: TemporalConfig;
  /** Where runs go (TEMPORAL_TASK_QUEUE, PROVIDER_TASK_QUEUE) and whether they archive (ARCHIVE_AVATARS). */
  placement: RunPlacement;
  /** CAMPAIGN_MAX_IN_FLIGHT, the default window (campaigns store their manifests in the blob store). */
  campaigns: { maxInFlight: number | 'auto' };
  /**
   * IMAGE_ROOTS (absolute; default the working directory) and IMAGE_URL_HOSTS; `excluded`: the blob
   * store's directories, never readable as selfie files (see blobStoreDirs).
   */
  imageAccess: {
    roots: string[];
    urlHosts: string[];
    excluded?: string[];
    /** IMAGE_ROOTS as set, or undefined: starters check paths against roots only when they are given (the workers' default is their own working directory). */
    givenRoots?: string[];
  };
}

/**
 * The variables a starter reads: the Temporal connection (every TEMPORAL_* one), payload
 * encryption, where runs go and under which bounds, and where selfies may come from. The
 * worker's, the API's and the provider's settings are not a starter's business, so an app that
 * sets LOG_LEVEL or API_PORT its own way can still start pipelines.
 */
const STARTER_OWN = [
  'ENCRYPTION_KEYS',
  'ENCRYPTION_KEY_ID',
  'IMAGE_ROOTS',
  'IMAGE_URL_HOSTS',
  'BLOB_DIR',
  'PROVIDER_TASK_QUEUE',
  'ARCHIVE_AVATARS',
  'SELFIE_CHECKS',
  'AVATAR_CHECKS',
  'AVATAR_CHECK_REGENERATIONS',
  'CHECKS_TASK_QUEUE',
  'PROVIDER_POLL_MIN_INTERVAL_MS',
  'PROVIDER_POLL_MAX_INTERVAL_MS',
  'CAMPAIGN_MAX_IN_FLIGHT',
] as const satisfies readonly (keyof Env)[];
type StarterVariable = (typeof STARTER_OWN)[number] | Extract<keyof Env, `TEMPORAL_${string}`>;
const STARTER_VARIABLES: readonly StarterVariable[] = [
  ...(Object.keys(envSchema.shape).filter((name) => name.startsWith('TEMPORAL_')) as StarterVariable[]),
  ...STARTER_OWN,
];
/** The environment as a starter sees it. */
export type StarterEnv = Pick<Env, StarterVariable>;

/** Validates only the starter's variables, each bad one reported by name and reason. */
export function parseStarterEnv(env: NodeJS.ProcessEnv): StarterEnv {
  const mask = Object.fromEntries(STARTER_VARIABLES.map((name) => [name, true as const]));
  return parseEnvOf(envSchema.pick(mask as { [K in StarterVariable]: true }), env);
}

/** Settings the caller gives in code, ahead of the environment. */
export interface StarterOverrides {
  temporal?: Partial<TemporalConfig>;
  providerTaskQueue?: string;
}

export function loadStarterSettings(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): StarterSettings {
  return starterSettingsOf(env, parseStarterEnv(env), cwd);
}

/**
 * The one place each of these is worked out from the environment: `e` is `env` parsed, and `env`
 * itself is where @temporalio/envconfig reads the connection variables.
 */
export function starterSettingsOf(
  env: NodeJS.ProcessEnv,
  e: StarterEnv,
  cwd: string,
  overrides: StarterOverrides = {},
): StarterSettings {
  const temporal: TemporalConfig = {
    taskQueue: e.TEMPORAL_TASK_QUEUE,
    ...temporalAccess(env, e, cwd),
    ...definedOnly(overrides.temporal ?? {}),
  };
  const roots = (e.IMAGE_ROOTS ?? [cwd]).map((root) => resolve(cwd, root));
  const stores = blobStoreDirs(env, e, cwd);
  // Unset IMAGE_ROOTS (the working directory, for local use) may hold the default BLOB_DIR: the
  // blob store is still excluded from the roots when selfie paths are checked.
  const overlaps = e.IMAGE_ROOTS === undefined ? [] : overlapProblems(roots, stores);
  if (overlaps.length > 0) throw new ConfigError(overlaps);
  return {
    temporal,
    placement: placementFrom({
      taskQueue: temporal.taskQueue,
      providerTaskQueue: overrides.providerTaskQueue ?? e.PROVIDER_TASK_QUEUE,
      archiveAvatars: e.ARCHIVE_AVATARS,
      pollingBounds: pollingBoundsOf(e),
      checks: {
        taskQueue: e.CHECKS_TASK_QUEUE,
        selfies: e.SELFIE_CHECKS,
        avatars: e.AVATAR_CHECKS,
        avatarRegenerations: e.AVATAR_CHECK_REGENERATIONS,
      },
    }),
    campaigns: { maxInFlight: e.CAMPAIGN_MAX_IN_FLIGHT },
    imageAccess: {
      roots,
      urlHosts: e.IMAGE_URL_HOSTS,
      excluded: stores.map((store) => store.dir),
      ...(e.IMAGE_ROOTS ? { givenRoots: roots } : {}),
    },
  };
}

/** The operator's polling bounds; a minimum above the maximum is refused, naming both. */
function pollingBoundsOf(e: StarterEnv): PollingBounds {
  const bounds = {
    minIntervalMs: e.PROVIDER_POLL_MIN_INTERVAL_MS,
    maxIntervalMs: e.PROVIDER_POLL_MAX_INTERVAL_MS,
  };
  const problems = [
    ...(bounds.maxIntervalMs > MAX_POLL_INTERVAL_MS
      ? [{ variable: 'PROVIDER_POLL_MAX_INTERVAL_MS', reason: `must be at most ${MAX_POLL_INTERVAL_MS}` }]
      : []),
    ...(bounds.minIntervalMs > bounds.maxIntervalMs
      ? [
          {
            variable: 'PROVIDER_POLL_MIN_INTERVAL_MS',
            reason: `must not be above PROVIDER_POLL_MAX_INTERVAL_MS (${bounds.maxIntervalMs})`,
          },
        ]
      : []),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  return bounds;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

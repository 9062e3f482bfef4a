import { resolve } from 'node:path';
import type { SelfieRetention } from '@avatar-pipeline/client/config/selfie-retention';
import { providerSettingsOf, type ProviderSettings } from '@avatar-pipeline/client/config/provider-settings';
import { parseEnv, parseEnvOf } from '@avatar-pipeline/client/config/parse-env';
import { envSchema, type Env } from '@avatar-pipeline/client/config/env-schema';
import { loadTenantsFile, type TenantsConfig } from './tenants';
import type { Costs } from '@avatar-pipeline/client/contracts/usage';
import type { RunPlacement } from '@avatar-pipeline/client/config/run-placement';
import {
  starterSettingsOf,
  type StarterSettings,
  type TemporalConfig,
} from '@avatar-pipeline/client/config/starter-settings';
import type { StorageSettings } from '@avatar-pipeline/client/storage/storage-settings';
import { storageSettingsOf } from '@avatar-pipeline/client/storage/env-blob-store';
import type { AvatarThresholds } from '../quality/avatar-verdicts';
import type { SelfieThresholds } from '../quality/selfie-verdicts';

/** The blob store (selfies, archived avatars) and what goes into it. */
export interface StorageConfig extends StorageSettings {
  /** STORAGE_LINK_SECRET: signs API links to filesystem objects. */
  linkSecret?: string;
  /** AVATAR_PRIVATE_HOSTS: hosts besides the provider's origin whose private addresses avatar downloads may reach. */
  avatarPrivateHosts?: string[];
}

/** How much of the API one client or all clients together may use. */
export interface ApiLimits {
  requestTimeoutMs: number;
  /** All clients together (API_MAX_CONNECTIONS). */
  maxConnections: number;
  /** One client address (an IPv6 client by its /64) (API_MAX_CONNECTIONS_PER_CLIENT). */
  maxConnectionsPerClient: number;
  rateLimitPerMinute: number;
  /** Event streams open at once on one run (API_EVENT_STREAMS_PER_RUN). */
  eventStreamsPerRun: number;
  /** Event streams open at once with one token (API_EVENT_STREAMS_PER_TOKEN). */
  eventStreamsPerToken: number;
}

export interface AppConfig {
  /** Where runs go: the task queues that starters use and workers poll, and ARCHIVE_AVATARS. */
  placement: RunPlacement;
  /** Batch campaigns: the default window (CAMPAIGN_MAX_IN_FLIGHT); their manifests are kept in the blob store. */
  campaigns: StarterSettings['campaigns'];
  /** writeSettleMs: PROVIDER_WRITE_SETTLE_MS (activities default to 60 s when a hand-built config leaves it out). */
  provider: ProviderSettings;
  /** Optional parts (API key, TLS, payload encryption) are absent when not configured. */
  temporal: TemporalConfig;
  imageAccess: StarterSettings['imageAccess'];
  api: {
    tokens: string[];
    port: number;
    host: string;
    /** Absolute directory of the filesystem blob store when STORAGE_URL is unset (BLOB_DIR). */
    blobDir: string;
    maxFileBytes: number;
    /** All selfies of one request together (API_MAX_REQUEST_BYTES; default DEFAULT_MAX_REQUEST_BYTES). */
    maxRequestBytes?: number;
    /** When uploaded selfies are deleted (SELFIE_RETENTION; default after training). */
    selfieRetention?: SelfieRetention;
    temporalUiUrl?: string;
    /** API_ACCESS_TOKEN_SECRET: signs browser access tokens; unset, a random key per API process. */
    accessTokenSecret?: string;
    /** API_PUBLIC_URL: the base of links the API hands out; unset, each request's Host header. */
    publicUrl?: string;
    /** API_ARCHIVE_LINK_TTL_SECONDS: how long archived-avatar links work; ARCHIVE_LINK_TTL_SECONDS when absent. */
    archiveLinkTtlSeconds?: number;
    /** API_REQUEST_TIMEOUT_MS, API_MAX_CONNECTIONS(_PER_CLIENT), API_RATE_LIMIT_PER_MINUTE, API_EVENT_STREAMS_*; the API's defaults when absent. */
    limits?: ApiLimits;
  };
  callbacks: {
    /** Signs completion callbacks (CALLBACK_SIGNING_SECRET); never part of workflow input. */
    signingSecret?: string;
    /** Hosts whose private addresses callbacks may reach (CALLBACK_PRIVATE_HOSTS). */
    privateHosts: string[];
    /** CALLBACK_SIGNING_SECRET_PREVIOUS: still signed with while receivers move to the new secret. */
    previousSigningSecret?: string;
    /** CALLBACK_LEGACY_SIGNATURE: also send `X-Avatar-Signature`. */
    legacySignature?: boolean;
    /** WEBHOOK_SIGNING_KEY: registered endpoints' secrets are derived from it; never part of workflow input. */
    webhookKey?: string;
    /** WEBHOOK_LOG_RETENTION_DAYS. */
    logRetentionDays?: number;
  };
  /**
   * Per-tenant settings (API_TENANTS_FILE), read through tenantSettingsOf; a tenant not named has the
   * defaults. Optional for hand-built configurations; loadConfig always fills it in.
   */
  tenants?: TenantsConfig;
  /**
   * What provider work costs (API_TENANTS_FILE's `costs`): with it, starts reserve from their
   * tenant's budget and provider workers meter every order. The API and the workers read one file.
   */
  costs?: Costs;
  /**
   * The blob store: selfies, archived avatars, manifests, the package's records (STORAGE_URL, else
   * the filesystem at BLOB_DIR). Resolved here once; neither the worker nor the API makes up another.
   */
  storage: StorageConfig;
  worker: {
    maxConcurrentActivities: number;
    maxConcurrentWorkflowTasks: number;
    maxCachedWorkflows: number;
    shutdownGraceMs: number;
    /**
     * PROVIDER_MAX_RPS: provider workers hold the whole provider task queue, across all workers, under
     * the provider's quota (one request per activity); unlimited when absent.
     */
    providerMaxRequestsPerSecond?: number;
    /** PROVIDER_RATE_CONTROL: whether the provider rate controller moves the rate under the ceiling. */
    providerRateControl?: 'adaptive' | 'fixed';
    /** Worker Deployment Version (TEMPORAL_DEPLOYMENT_NAME, TEMPORAL_WORKER_BUILD_ID); unversioned when absent. */
    deployment?: { name: string; buildId: string };
    /**
     * The check worker (CHECK_WORKER, CHECK_WORKER_CONCURRENCY) and its thresholds. Absent (a
     * hand-built configuration): the process runs no check worker.
     */
    checks?: CheckWorkerConfig;
  };
}

export interface CheckWorkerConfig {
  /** `on`: beside the pipeline and provider workers; `only`: alone (a check-only process); `off`: none. */
  mode: 'on' | 'off' | 'only';
  concurrency: number;
  thresholds: SelfieThresholds;
  avatarThresholds: AvatarThresholds;
}

/** Parses the environment once, at start; every bad variable is reported together. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): AppConfig {
  const e = parseEnv(env);
  const starter = starterSettingsOf(env, e, cwd);
  const provider = providerSettingsOf(e);
  return {
    provider,
    temporal: starter.temporal,
    imageAccess: starter.imageAccess,
    api: {
      tokens: e.API_TOKENS,
      port: e.API_PORT,
      host: e.API_HOST,
      blobDir: resolve(cwd, e.BLOB_DIR),
      maxFileBytes: e.API_MAX_FILE_BYTES,
      maxRequestBytes: e.API_MAX_REQUEST_BYTES,
      selfieRetention: e.SELFIE_RETENTION,
      archiveLinkTtlSeconds: e.API_ARCHIVE_LINK_TTL_SECONDS,
      limits: {
        requestTimeoutMs: e.API_REQUEST_TIMEOUT_MS,
        maxConnections: e.API_MAX_CONNECTIONS,
        maxConnectionsPerClient: e.API_MAX_CONNECTIONS_PER_CLIENT,
        rateLimitPerMinute: e.API_RATE_LIMIT_PER_MINUTE,
        eventStreamsPerRun: e.API_EVENT_STREAMS_PER_RUN,
        eventStreamsPerToken: e.API_EVENT_STREAMS_PER_TOKEN,
      },
      ...(e.TEMPORAL_UI_URL ? { temporalUiUrl: e.TEMPORAL_UI_URL } : {}),
      ...(e.API_PUBLIC_URL ? { publicUrl: e.API_PUBLIC_URL } : {}),
      ...(e.API_ACCESS_TOKEN_SECRET ? { accessTokenSecret: e.API_ACCESS_TOKEN_SECRET } : {}),
    },
    ...(e.API_TENANTS_FILE ? loadTenantsFile(e.API_TENANTS_FILE, cwd) : { tenants: {} }),
    callbacks: {
      ...(e.CALLBACK_SIGNING_SECRET ? { signingSecret: e.CALLBACK_SIGNING_SECRET } : {}),
      privateHosts: e.CALLBACK_PRIVATE_HOSTS.map((host) => host.toLowerCase()),
      ...(e.CALLBACK_SIGNING_SECRET_PREVIOUS
        ? { previousSigningSecret: e.CALLBACK_SIGNING_SECRET_PREVIOUS }
        : {}),
      legacySignature: e.CALLBACK_LEGACY_SIGNATURE,
      ...(e.WEBHOOK_SIGNING_KEY ? { webhookKey: e.WEBHOOK_SIGNING_KEY } : {}),
      logRetentionDays: e.WEBHOOK_LOG_RETENTION_DAYS,
    },
    worker: {
      maxConcurrentActivities: e.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentWorkflowTasks: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
      shutdownGraceMs: e.WORKER_SHUTDOWN_GRACE_MS,
      ...(e.PROVIDER_MAX_RPS !== undefined ? { providerMaxRequestsPerSecond: e.PROVIDER_MAX_RPS } : {}),
      providerRateControl: e.PROVIDER_RATE_CONTROL,
      ...(e.TEMPORAL_WORKER_BUILD_ID !== undefined
        ? { deployment: { name: e.TEMPORAL_DEPLOYMENT_NAME, buildId: e.TEMPORAL_WORKER_BUILD_ID } }
        : {}),
      checks: checkWorkerConfigOf(e),
    },
    placement: starter.placement,
    campaigns: starter.campaigns,
    storage: {
      ...storageSettingsOf(env, resolve(cwd, e.BLOB_DIR), cwd),
      avatarPrivateHosts: e.AVATAR_PRIVATE_HOSTS.map((host) => host.toLowerCase()),
      ...(e.STORAGE_LINK_SECRET ? { linkSecret: e.STORAGE_LINK_SECRET } : {}),
    },
  };
}

const CHECK_WORKER_VARIABLES = {
  CHECK_WORKER: true,
  CHECK_WORKER_CONCURRENCY: true,
  FACE_MATCH_MAX_DISTANCE: true,
  FACE_MIN_SIZE: true,
  SELFIE_MIN_SHARPNESS: true,
  SELFIE_DUPLICATE_MAX_BITS: true,
  AVATAR_UNSAFE_MIN_SCORE: true,
} as const;

/** The check worker's settings, from the whole environment parsed or from its own variables alone. */
export function checkWorkerConfigOf(e: Pick<Env, keyof typeof CHECK_WORKER_VARIABLES>): CheckWorkerConfig {
  return {
    mode: e.CHECK_WORKER,
    concurrency: e.CHECK_WORKER_CONCURRENCY,
    thresholds: {
      faceMatchMaxDistance: e.FACE_MATCH_MAX_DISTANCE,
      faceMinSize: e.FACE_MIN_SIZE,
      minSharpness: e.SELFIE_MIN_SHARPNESS,
      duplicateMaxBits: e.SELFIE_DUPLICATE_MAX_BITS,
    },
    avatarThresholds: {
      faceMatchMaxDistance: e.FACE_MATCH_MAX_DISTANCE,
      unsafeMinScore: e.AVATAR_UNSAFE_MIN_SCORE,
    },
  };
}

/** Only the check worker's variables, for a process that is no configured worker otherwise (the demo). */
export function loadCheckWorkerConfig(env: NodeJS.ProcessEnv): CheckWorkerConfig {
  return checkWorkerConfigOf(parseEnvOf(envSchema.pick(CHECK_WORKER_VARIABLES), env));
}

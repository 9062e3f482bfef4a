import { isIP } from 'node:net';
import { delimiter } from 'node:path';
import { z } from 'zod';
import { parseEncryptionKeys } from '../codec/encryption-keys';
import { selfieRetentionSchema } from './selfie-retention';

/** Where the local provider simulator listens by default (`avatar-pipeline simulator`). */
export const DEFAULT_SIMULATOR_PORT = 4010;
export const DEFAULT_PROVIDER_BASE_URL = `http://127.0.0.1:${DEFAULT_SIMULATOR_PORT}`;
/** The simulator's default key; only ever used when talking to the simulator. */
export const SIMULATOR_API_KEY = 'sim-key';
/** How long the provider may still perform a write whose answer timed out (PROVIDER_WRITE_SETTLE_MS). */
export const DEFAULT_PROVIDER_WRITE_SETTLE_MS = 60_000;
/** CAMPAIGN_DIR and CAMPAIGN_MAX_IN_FLIGHT when unset. */
export const DEFAULT_CAMPAIGN_DIR = '.data/campaigns';
/** `auto`: the campaign sizes its in-flight window from the provider's signals (src/contracts/in-flight-window.ts). */
export const DEFAULT_CAMPAIGN_MAX_IN_FLIGHT: number | 'auto' = 'auto';
/** Where `avatar-pipeline api` listens by default. */
export const DEFAULT_API_PORT = 8080;
/** Enough for MAX_SELFIES phone photos of a few MB each. */
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024;
/**
 * Sticky cache of a worker (README, "Worker memory"): what the worker holds without replaying, and
 * so the campaigns' bound on subjects in flight per worker (a subject keeps one workflow open, its pipeline).
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 500;

const blankAsUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUndefined, schema.optional());
// prefault, not default: zod 4 returns a default as is, skipping the schema's transforms, so a
// list variable's default '' would come out as a string instead of [].
const withDefault = <T extends z.ZodType>(schema: T, fallback: z.input<T>) =>
  z.preprocess(blankAsUndefined, schema.prefault(fallback as never));

const positiveInt = z.coerce.number().int('must be a whole number').positive('must be greater than 0');
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .transform((url) => url.replace(/\/+$/, ''));
const list = (separator: string) =>
  z.string().transform((value) =>
    value
      .split(separator)
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );
/**
 * Host names or IP literals, comma separated, as a URL's host is compared with them: an entry with
 * a scheme, port or path would never match, so it is refused rather than silently ignored.
 */
const hostList = list(',').check((ctx) => {
  const wrong = ctx.value.find((host) => !isHostName(host) && isIP(host.replace(/^\[|\]$/g, '')) === 0);
  if (wrong !== undefined) {
    ctx.issues.push({
      code: 'custom',
      input: ctx.value,
      message: `"${wrong}" is not a host name or IP address (give the host alone, without scheme, port or path)`,
    });
  }
});
const isHostName = (host: string) =>
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i.test(
    host,
  );

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const hostPort = z.string().regex(/^[^\s/]+:\d{1,5}$/, 'must be host:port, e.g. 0.0.0.0:9464');
const port = z.coerce
  .number()
  .int('must be a whole number')
  .min(0, 'must be a port 0-65535')
  .max(65535, 'must be a port 0-65535');
const encryptionKeys = z.string().transform((text, ctx) => {
  const parsed = parseEncryptionKeys(text);
  if (parsed.ok) return parsed.keys;
  ctx.addIssue({ code: 'custom', message: parsed.reason });
  return z.NEVER;
});

export const envSchema = z.object({
  PROVIDER_BASE_URL: withDefault(httpUrl, DEFAULT_PROVIDER_BASE_URL),
  PROVIDER_API_KEY: optional(z.string()),
  PROVIDER_TIMEOUT_MS: withDefault(positiveInt, 30_000),
  /**
   * A write (create, upload, run) whose answer timed out may still be performed by the provider
   * afterwards: its retry waits this long before looking for it, so it finds it instead of writing twice.
   */
  PROVIDER_WRITE_SETTLE_MS: withDefault(positiveInt, DEFAULT_PROVIDER_WRITE_SETTLE_MS),
  /** The provider's request quota: the task-queue-wide rate of provider activities (one request each). Unset: no limit. */
  PROVIDER_MAX_RPS: optional(z.coerce.number().positive('must be greater than 0')),
  /** Task queue of the provider activities, whose workers apply PROVIDER_MAX_RPS; default `<TEMPORAL_TASK_QUEUE>-provider`. */
  PROVIDER_TASK_QUEUE: optional(z.string().min(1)),
  /**
   * Of the connection variables @temporalio/envconfig reads (src/config/temporal-connection.ts),
   * those whose bad value it would take silently, checked with the rest.
   */
  TEMPORAL_ADDRESS: optional(
    z.string().regex(/^[^\s:/]+:\d{1,5}$/, 'must be host:port, e.g. localhost:7233'),
  ),
  TEMPORAL_TASK_QUEUE: withDefault(z.string().min(1), 'avatar-pipeline'),
  /** envconfig reads anything but true/1 as false: a typo would turn TLS off. */
  TEMPORAL_TLS: optional(booleanFlag),
  /** Payload encryption keys, `id:base64key,…` (32-byte keys); setting them turns encryption on. */
  ENCRYPTION_KEYS: optional(encryptionKeys),
  /** Which of ENCRYPTION_KEYS encrypts new payloads (the others only decrypt); optional with one key. */
  ENCRYPTION_KEY_ID: optional(z.string()),
  /** Where the worker serves Prometheus metrics (e.g. 0.0.0.0:9464); unset: no metrics endpoint. */
  METRICS_BIND_ADDRESS: optional(hostPort),
  LOG_LEVEL: withDefault(
    z
      .string()
      .transform((level) => level.toUpperCase())
      .pipe(
        z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'], {
          error: 'must be trace, debug, info, warn or error',
        }),
      ),
    'INFO',
  ),
  /** OTLP/HTTP collector base URL (spans go to <url>/v1/traces); setting it turns tracing on. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(httpUrl),
  /** The service.name on this process's spans. */
  OTEL_SERVICE_NAME: withDefault(z.string().min(1), 'avatar-pipeline'),
  /** json: one JSON object per line (for log collectors); text: for people. */
  LOG_FORMAT: withDefault(z.enum(['json', 'text'], { error: 'must be json or text' }), 'json'),
  /** Bearer tokens the codec server accepts (comma separated); without any it refuses to start. */
  CODEC_SERVER_TOKENS: withDefault(list(','), ''),
  /** Origins (e.g. the Temporal UI's, http://localhost:8080) allowed to call the codec server from a browser. */
  CODEC_CORS_ORIGINS: withDefault(list(','), ''),
  CODEC_SERVER_HOST: withDefault(z.string().min(1), '127.0.0.1'),
  CODEC_SERVER_PORT: withDefault(port, 8888),
  IMAGE_ROOTS: optional(list(delimiter)),
  IMAGE_URL_HOSTS: withDefault(list(','), ''),
  API_TOKENS: withDefault(list(','), ''),
  API_PORT: withDefault(
    z.coerce
      .number()
      .int('must be a whole number')
      .min(0, 'must be a port 0-65535')
      .max(65535, 'must be a port 0-65535'),
    DEFAULT_API_PORT,
  ),
  API_HOST: withDefault(z.string().min(1), '127.0.0.1'),
  /**
   * The API's address as clients reach it (e.g. https://avatars.example.com, a path prefix allowed),
   * the base of the links it hands out (archived avatars of a filesystem store). Unset: each answer
   * takes the origin from the request's Host header, which a client can set to anything; set it
   * wherever the API is reached through a proxy or by other names.
   */
  API_PUBLIC_URL: optional(
    httpUrl.refine(
      (url) => !/[?#]/.test(url),
      'must not have a query or fragment (a base URL, e.g. https://api.example.com)',
    ),
  ),
  /**
   * The filesystem blob store (uploaded selfies, archived avatars) when STORAGE_URL is unset. Workers
   * read uploads through the store, not through IMAGE_ROOTS; a worker on another machine needs this
   * directory shared, or an S3 STORAGE_URL.
   */
  BLOB_DIR: withDefault(z.string().min(1), '.blobs'),
  API_MAX_FILE_BYTES: withDefault(positiveInt, 10 * 1024 * 1024),
  /** All of one request's selfies together. */
  API_MAX_REQUEST_BYTES: withDefault(positiveInt, DEFAULT_MAX_REQUEST_BYTES),
  SELFIE_RETENTION: withDefault(selfieRetentionSchema, 'after-training'),
  /** Whole request (headers and body) must arrive within this; slow uploads past it are cut off. */
  API_REQUEST_TIMEOUT_MS: withDefault(positiveInt, 120_000),
  /** Open connections the API accepts at once; more are refused. */
  API_MAX_CONNECTIONS: withDefault(positiveInt, 1024),
  /**
   * Open connections one client address (an IPv6 client: its /64) may hold, so no one client takes
   * all of API_MAX_CONNECTIONS. Behind a reverse proxy every connection comes from the proxy: raise
   * it to API_MAX_CONNECTIONS there.
   */
  API_MAX_CONNECTIONS_PER_CLIENT: withDefault(positiveInt, 64),
  /** Requests per minute per bearer token (per client address without a valid token). */
  API_RATE_LIMIT_PER_MINUTE: withDefault(positiveInt, 600),
  /** Progress event streams (GET …/events) open at once on one run, from all clients (429 beyond). */
  API_EVENT_STREAMS_PER_RUN: withDefault(positiveInt, 50),
  /** Progress event streams open at once with one bearer token, over all runs (429 beyond). */
  API_EVENT_STREAMS_PER_TOKEN: withDefault(positiveInt, 20),
  /**
   * Where selfies and archived avatars are stored: s3://bucket/prefix (endpoint, region and keys from
   * the AWS variables), or a directory; unset: BLOB_DIR on the filesystem. Checked by src/storage.
   */
  STORAGE_URL: optional(z.string()),
  /** Copy every avatar into the store as its style finishes, so it outlives the provider's URLs. */
  ARCHIVE_AVATARS: withDefault(booleanFlag, 'true'),
  /** Signs the API's links to archived avatars of a filesystem store; unset: a random key per API process. */
  STORAGE_LINK_SECRET: optional(z.string().min(16, 'must be at least 16 characters')),
  /** Base URL of the Temporal Web UI, for links to runs (e.g. http://localhost:8233). */
  TEMPORAL_UI_URL: optional(httpUrl),
  /** Key for the HMAC-SHA256 signature of completion callbacks; without it callbacks are refused. */
  CALLBACK_SIGNING_SECRET: optional(z.string().min(16, 'must be at least 16 characters')),
  /** Hosts whose private or loopback addresses callbacks may reach (public hosts need no listing). */
  CALLBACK_PRIVATE_HOSTS: withDefault(list(','), ''),
  /**
   * Hosts whose private or loopback addresses avatar downloads (ARCHIVE_AVATARS) may reach, besides
   * PROVIDER_BASE_URL's host, which is always trusted; any other host must resolve to public addresses.
   */
  AVATAR_PRIVATE_HOSTS: withDefault(hostList, ''),
  WORKER_MAX_CONCURRENT_ACTIVITIES: withDefault(positiveInt, 50),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: withDefault(positiveInt, 20),
  WORKER_MAX_CACHED_WORKFLOWS: withDefault(positiveInt, DEFAULT_MAX_CACHED_WORKFLOWS),
  WORKER_SHUTDOWN_GRACE_MS: withDefault(positiveInt, 30_000),
  /** Worker Deployment the workers belong to (the name Temporal's worker controller sets too). */
  TEMPORAL_DEPLOYMENT_NAME: withDefault(
    z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^.]+$/, 'must not contain "."'),
    'avatar-pipeline',
  ),
  /** This build's version within the deployment; unset, the workers are unversioned (local default). */
  TEMPORAL_WORKER_BUILD_ID: optional(z.string().min(1).max(255)),
  /** Where validated campaign manifests are kept; starters write there and workers read, so both must see it. */
  CAMPAIGN_DIR: withDefault(z.string().min(1), DEFAULT_CAMPAIGN_DIR),
  /**
   * Child pipelines a campaign keeps running at once, unless the campaign says otherwise: `auto`
   * sizes the window from the provider's signals; a number caps that window.
   */
  CAMPAIGN_MAX_IN_FLIGHT: withDefault(
    z.union([z.literal('auto'), positiveInt]),
    DEFAULT_CAMPAIGN_MAX_IN_FLIGHT,
  ),
});
export type Env = z.output<typeof envSchema>;

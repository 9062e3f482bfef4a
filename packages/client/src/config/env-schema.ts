import { isIP } from 'node:net';
import { delimiter } from 'node:path';
import { z } from 'zod';
import { parseEncryptionKeys } from '../codec/encryption-keys';
import { MAX_POLL_INTERVAL_MS } from '../contracts/limits';
import { selfieRetentionSchema } from './selfie-retention';

/** Where the local provider simulator listens by default (`avatar-pipeline simulator`). */
export const DEFAULT_SIMULATOR_PORT = 4010;
export const DEFAULT_PROVIDER_BASE_URL = `http://127.0.0.1:${DEFAULT_SIMULATOR_PORT}`;
/** The simulator's default key; only ever used when talking to the simulator. */
export const SIMULATOR_API_KEY = 'sim-key';
/** Timeout of one provider call (PROVIDER_TIMEOUT_MS). */
export const DEFAULT_PROVIDER_TIMEOUT_MS = 30_000;
/** How long the provider may still perform a write whose answer timed out (PROVIDER_WRITE_SETTLE_MS). */
export const DEFAULT_PROVIDER_WRITE_SETTLE_MS = 60_000;
/** PROVIDER_POLL_MIN_INTERVAL_MS when unset: a run polls one order at most every 5 s. */
export const DEFAULT_POLL_MIN_INTERVAL_MS = 5_000;
/** CAMPAIGN_MAX_IN_FLIGHT when unset. `auto`: the campaign sizes its in-flight window from the provider's signals (workflows/campaign/window-controller.ts). */
export const DEFAULT_CAMPAIGN_MAX_IN_FLIGHT: number | 'auto' = 'auto';
/** Where `avatar-pipeline api` listens by default. */
export const DEFAULT_API_PORT = 8080;
/** Enough for MAX_SELFIES phone photos of a few MB each. */
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024;
/**
 * Sticky cache of a worker (docs/operations.md, "Worker memory"): what the worker holds without replaying, and
 * so the campaigns' bound on subjects in flight per worker (a subject keeps one workflow open, its pipeline).
 * 1,000 open pipelines fit in it: the worker's memory target is set at that load, and an evicted run costs
 * a replay of its history at each of its later workflow tasks (bench/RESULTS.md).
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 1_000;

const blankAsUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUndefined, schema.optional());
// prefault, not default: zod 4 returns a default as is, skipping the schema's transforms, so a
// list variable's default '' would come out as a string instead of [].
// The default is also kept as metadata, for the generated configuration reference.
const withDefault = <T extends z.ZodType>(schema: T, fallback: z.input<T>) =>
  z.preprocess(blankAsUndefined, schema.prefault(fallback as never)).meta({ default: fallback });

const positiveInt = z.coerce.number().int('must be a whole number').positive('must be greater than 0');
const nonNegativeInt = z.coerce.number().int('must be a whole number').nonnegative('must not be negative');
const fraction = z.coerce.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
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

/**
 * Every variable states its meaning with `.describe()` and, through withDefault, its default:
 * docs/configuration.md is generated from them (`npm run docs:config`), so they are the reference.
 */
export const envSchema = z.object({
  PROVIDER_BASE_URL: withDefault(httpUrl, DEFAULT_PROVIDER_BASE_URL).describe(
    'Provider base URL (the default is the local simulator); a path prefix such as `/rest/api` is kept.',
  ),
  PROVIDER_API_KEY: optional(z.string()).describe(
    'Sent to the provider as `Authorization: Bearer …`; never enters workflow history or logs. Required unless PROVIDER_BASE_URL is the simulator (whose key is `sim-key`).',
  ),
  PROVIDER_TIMEOUT_MS: withDefault(positiveInt, DEFAULT_PROVIDER_TIMEOUT_MS).describe(
    "Timeout of one provider call, in ms. Must stay below the 60 s start-to-close timeout of provider writes, so that a write attempt ends by its own timeout (then its retry waits PROVIDER_WRITE_SETTLE_MS) rather than the server's.",
  ),
  // A write whose answer timed out may still be performed by the provider afterwards.
  PROVIDER_WRITE_SETTLE_MS: withDefault(positiveInt, DEFAULT_PROVIDER_WRITE_SETTLE_MS).describe(
    'How long the retry of a create, upload or run that may still be on its way (its answer timed out, a 502 or 504, a connection cut after sending) waits before looking for it, so it finds the write instead of making a second one; after an attempt the server timed out, the retry waits PROVIDER_TIMEOUT_MS plus this. Set it above the longest time your provider may still act on an abandoned request.',
  ),
  PROVIDER_MAX_RPS: optional(z.coerce.number().positive('must be greater than 0')).describe(
    "The most provider requests per second the key may use, across all workers: the ceiling of the provider task queue's rate limit (with PROVIDER_RATE_CONTROL=adaptive, the rate the provider grants, learned from its answers; with fixed, this rate). Unset: no limit.",
  ),
  PROVIDER_RATE_CONTROL: withDefault(
    z.enum(['adaptive', 'fixed'], { error: 'must be adaptive or fixed' }),
    'adaptive',
  ).describe(
    'With PROVIDER_MAX_RPS: `adaptive` lets one controller workflow per provider task queue lower the rate on 429s and probe back up to PROVIDER_MAX_RPS (other clients of the key keep their share); `fixed` holds the rate at PROVIDER_MAX_RPS (a key this deployment has to itself).',
  ),
  PROVIDER_POLL_MIN_INTERVAL_MS: withDefault(positiveInt, DEFAULT_POLL_MIN_INTERVAL_MS).describe(
    'The shortest provider polling interval a caller may ask for (polling.*IntervalMs, in ms): shorter is refused (422 naming the field), and runs hold every wait at least this long. Status calls spend a quota all tenants share.',
  ),
  PROVIDER_POLL_MAX_INTERVAL_MS: withDefault(positiveInt, MAX_POLL_INTERVAL_MS).describe(
    'The longest provider polling interval a caller may ask for, in ms (at most 3600000); longer is refused (422 naming the field).',
  ),
  PROVIDER_TASK_QUEUE: optional(z.string().min(1)).describe(
    'Task queue of the provider activities, whose workers apply PROVIDER_MAX_RPS. Unset: `<TEMPORAL_TASK_QUEUE>-provider`.',
  ),
  // The connection variables are read by @temporalio/envconfig (packages/client/src/config/temporal-connection.ts).
  // They stand here for the reference; TEMPORAL_ADDRESS and TEMPORAL_TLS are also checked here,
  // since envconfig would take a bad value of either silently.
  TEMPORAL_ADDRESS: optional(
    z.string().regex(/^[^\s:/]+:\d{1,5}$/, 'must be host:port, e.g. localhost:7233'),
  ).describe('The Temporal frontend, host:port. Unset: `localhost:7233`.'),
  TEMPORAL_NAMESPACE: optional(z.string().min(1)).describe('The Temporal namespace. Unset: `default`.'),
  TEMPORAL_TASK_QUEUE: withDefault(z.string().min(1), 'avatar-pipeline').describe(
    'Task queue of pipelines, campaigns and their light activities.',
  ),
  TEMPORAL_API_KEY: optional(z.string()).describe(
    'API key for Temporal Cloud (or any cluster that takes one); turns TLS on unless TEMPORAL_TLS=false.',
  ),
  TEMPORAL_TLS: optional(booleanFlag).describe(
    'TLS to the Temporal frontend (true or false); unset: on when an API key or any TLS variable is given.',
  ),
  TEMPORAL_TLS_CLIENT_CERT_PATH: optional(z.string()).describe(
    'mTLS client certificate (PEM file), e.g. for Temporal Cloud with certificates; `TEMPORAL_TLS_CLIENT_CERT_DATA` takes the PEM text itself.',
  ),
  TEMPORAL_TLS_CLIENT_KEY_PATH: optional(z.string()).describe(
    'mTLS client key (PEM file); `TEMPORAL_TLS_CLIENT_KEY_DATA` takes the PEM text itself.',
  ),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: optional(z.string()).describe(
    'CA bundle (PEM file) for a server certificate the system roots do not cover; `TEMPORAL_TLS_SERVER_CA_CERT_DATA` takes the PEM text itself.',
  ),
  TEMPORAL_TLS_SERVER_NAME: optional(z.string()).describe(
    'Server name to check the server certificate against, when it differs from the address.',
  ),
  ENCRYPTION_KEYS: optional(encryptionKeys).describe(
    'Payload encryption keys, `id:base64key,…` (32-byte keys, e.g. `openssl rand -base64 32`); setting them turns AES-256-GCM encryption of payloads on. Keep every key old runs used.',
  ),
  ENCRYPTION_KEY_ID: optional(z.string()).describe(
    'Which of ENCRYPTION_KEYS encrypts new payloads (the others only decrypt); optional with one key.',
  ),
  METRICS_BIND_ADDRESS: optional(hostPort).describe(
    'Where the worker serves Prometheus metrics, host:port (e.g. 0.0.0.0:9464). Unset: no metrics endpoint.',
  ),
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
  ).describe('Lowest level logged by the worker and the API: trace, debug, info, warn or error.'),
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(httpUrl).describe(
    'OTLP/HTTP collector base URL (spans go to `<url>/v1/traces`); setting it turns tracing of the worker and the API on. `OTEL_EXPORTER_OTLP_HEADERS` carries its credentials.',
  ),
  OTEL_SERVICE_NAME: withDefault(z.string().min(1), 'avatar-pipeline').describe(
    "The `service.name` on this process's spans.",
  ),
  LOG_FORMAT: withDefault(z.enum(['json', 'text'], { error: 'must be json or text' }), 'json').describe(
    '`json`: one JSON object per line on stderr, for log collectors; `text`: for people.',
  ),
  CODEC_SERVER_TOKENS: withDefault(list(','), '').describe(
    'Bearer tokens the codec server accepts (comma separated); without any it refuses to start.',
  ),
  CODEC_CORS_ORIGINS: withDefault(list(','), '').describe(
    "Browser origins (e.g. the Temporal UI's, http://localhost:8080) allowed to call the codec server, comma separated.",
  ),
  CODEC_SERVER_HOST: withDefault(z.string().min(1), '127.0.0.1').describe(
    'Where `avatar-pipeline codec-server` listens.',
  ),
  CODEC_SERVER_PORT: withDefault(port, 8888).describe("The codec server's port."),
  IMAGE_ROOTS: optional(list(delimiter)).describe(
    'Directories (separated like PATH) under which selfies may be given by path; anything outside gets one answer whether or not it exists, and so does anything in the blob store. An entry that contains BLOB_DIR (or a directory STORAGE_URL) or lies inside it is refused. Unset: the working directory.',
  ),
  IMAGE_URL_HOSTS: withDefault(list(','), '').describe(
    'Hosts allowed for http(s) selfie references, comma separated; a host with private or loopback addresses must be listed itself.',
  ),
  API_TOKENS: withDefault(list(','), '').describe(
    'Bearer tokens of the starter API, comma separated, each at least 16 characters; `avatar-pipeline api` refuses to start without one. An entry `tenant:token` gives the token to that tenant (ids `[a-z0-9-]{1,40}`); a bare token belongs to tenant `default`. A token under two tenants is refused.',
  ),
  API_TENANTS_FILE: optional(z.string()).describe(
    'A YAML or JSON file of per-tenant settings (fairness weight, campaign priority ceiling, requests a minute, scopes, budget) and the prices of provider work (`costs`); see docs/tenants.md and docs/budgets.md. Read by the API and the workers alike. Unset: every tenant has the defaults (weight 1, ceiling 3, API_RATE_LIMIT_PER_MINUTE per token, every scope) and nothing is metered.',
  ),
  API_ACCESS_TOKEN_SECRET: optional(z.string().min(32, 'must be at least 32 characters')).describe(
    'Signs browser access tokens (`POST …/access-tokens`), 32+ characters; every API replica needs the same one. Unset: a random key per API process, so access tokens stop working when the API restarts and are refused by other replicas.',
  ),
  API_PORT: withDefault(
    z.coerce
      .number()
      .int('must be a whole number')
      .min(0, 'must be a port 0-65535')
      .max(65535, 'must be a port 0-65535'),
    DEFAULT_API_PORT,
  ).describe('Where the API listens (`--port` overrides).'),
  API_HOST: withDefault(z.string().min(1), '127.0.0.1').describe(
    'The address the API binds (`--host` overrides).',
  ),
  API_PUBLIC_URL: optional(
    httpUrl.refine(
      (url) => !/[?#]/.test(url),
      'must not have a query or fragment (a base URL, e.g. https://api.example.com)',
    ),
  ).describe(
    "The API's address as clients reach it (e.g. https://avatars.example.com, a path prefix allowed): the base of the links it hands out to archived avatars of a filesystem store. Unset: each answer takes the origin from the request's Host header, which a client can set to anything; set it in production.",
  ),
  API_ARCHIVE_LINK_TTL_SECONDS: withDefault(positiveInt, 15 * 60).describe(
    'How long a link to an archived avatar (`archivedUrl`, a presigned S3 URL or the API\u2019s own signed link) works, in seconds. Every status answer signs fresh ones and says when they stop working (`linksExpireAt`); the console asks again before then.',
  ),
  BLOB_DIR: withDefault(z.string().min(1), '.blobs').describe(
    'The filesystem blob store (uploaded selfies, archived avatars) when STORAGE_URL is unset. Workers read uploads through the store, not through IMAGE_ROOTS, and it must lie outside every IMAGE_ROOTS entry; workers on other machines need it shared, or an S3 STORAGE_URL.',
  ),
  API_MAX_FILE_BYTES: withDefault(positiveInt, 10 * 1024 * 1024).describe(
    'Largest selfie the API accepts, in bytes (413 above).',
  ),
  API_MAX_REQUEST_BYTES: withDefault(positiveInt, DEFAULT_MAX_REQUEST_BYTES).describe(
    'All selfies of one request together, in bytes (413 above).',
  ),
  SELFIE_RETENTION: withDefault(selfieRetentionSchema, 'after-training').describe(
    'When uploaded selfies are deleted: `after-training` (by the run, as soon as its model is trained), `after-end`, or a duration after the end (`30m`, `12h`, `7d`).',
  ),
  API_REQUEST_TIMEOUT_MS: withDefault(positiveInt, 120_000).describe(
    'A whole request (headers and body) must arrive within this many ms; slower ones get 408.',
  ),
  API_MAX_CONNECTIONS: withDefault(positiveInt, 1024).describe(
    'Open connections the API accepts at once; more are refused.',
  ),
  API_MAX_CONNECTIONS_PER_CLIENT: withDefault(positiveInt, 64).describe(
    'Open connections one client address (an IPv6 client: its /64) may hold, so no one client takes all of API_MAX_CONNECTIONS. Behind a reverse proxy every connection comes from the proxy: raise it to API_MAX_CONNECTIONS there.',
  ),
  API_RATE_LIMIT_PER_MINUTE: withDefault(positiveInt, 600).describe(
    'Requests a minute per bearer token (per tenant when its `requestsPerMinute` is set in API_TENANTS_FILE), per browser access token, or per client address without a valid token (429 with Retry-After beyond).',
  ),
  API_EVENT_STREAMS_PER_RUN: withDefault(positiveInt, 50).describe(
    'Progress event streams (`GET …/events`) open at once on one run, from all clients (429 beyond).',
  ),
  API_EVENT_STREAMS_PER_TOKEN: withDefault(positiveInt, 20).describe(
    'Progress event streams open at once with one bearer token, over all runs (429 beyond).',
  ),
  STORAGE_URL: optional(z.string()).describe(
    'Where uploaded selfies and archived avatars are stored: `s3://bucket/prefix` (endpoint, region and keys from the AWS variables below), or a directory. Unset: BLOB_DIR.',
  ),
  ARCHIVE_AVATARS: withDefault(booleanFlag, 'true').describe(
    "Copy every avatar into the blob store as its style finishes, so it outlives the provider's URLs.",
  ),
  SELFIE_CHECKS: withDefault(booleanFlag, 'true').describe(
    'Check selfies before anything is written to the provider: one face each, of a usable size, sharpness and exposure, one person across all of them, no near-duplicates. A refused set starts nothing (422 naming `images.N`).',
  ),
  AVATAR_CHECKS: withDefault(booleanFlag, 'true').describe(
    "Check each style's avatars when its order is done: the face is the person's (compared with the selfies the model was trained on) and nothing is flagged unsafe. A style whose avatars fail is ordered again, up to AVATAR_CHECK_REGENERATIONS times.",
  ),
  AVATAR_CHECK_REGENERATIONS: withDefault(nonNegativeInt.max(5, 'must be at most 5'), 1).describe(
    'How many more generation orders a style whose avatars fail their checks may be given (0: none; what fails is reported).',
  ),
  AVATAR_UNSAFE_MIN_SCORE: withDefault(fraction, 0.6).describe(
    "An avatar is flagged unsafe when the NSFW classifier's Porn, Hentai and Sexy probabilities add up to at least this.",
  ),
  CHECKS_TASK_QUEUE: optional(z.string().min(1)).describe(
    'Task queue of the quality checks, apart from the provider queue so check workers scale alone. Unset: `<TEMPORAL_TASK_QUEUE>-checks`.',
  ),
  CHECK_WORKER: withDefault(
    z.enum(['on', 'off', 'only'], { error: 'must be on, off or only' }),
    'on',
  ).describe(
    'The check worker of this process (on the checks task queue; the face models load at its first check): `on` beside the pipeline and provider workers, `only` alone (a process that scales the checks apart), `off` none.',
  ),
  CHECK_WORKER_CONCURRENCY: withDefault(positiveInt, 1).describe(
    'Checks one check worker runs at once; each takes one CPU core while it runs.',
  ),
  FACE_MATCH_MAX_DISTANCE: withDefault(z.coerce.number().positive('must be greater than 0'), 0.55).describe(
    'Two faces are one person when their descriptors (128-d) are at most this far apart (Euclidean).',
  ),
  FACE_MIN_SIZE: withDefault(fraction, 0.15).describe(
    "Smallest face a selfie may hold, as a share of the image's shorter side.",
  ),
  SELFIE_MIN_SHARPNESS: withDefault(z.coerce.number().nonnegative('must not be negative'), 40).describe(
    'Least sharpness of the face region (variance of the Laplacian of its grey levels, at 128 px); blurred selfies score lower.',
  ),
  SELFIE_DUPLICATE_MAX_BITS: withDefault(nonNegativeInt, 6).describe(
    'Two selfies are near-duplicates when their 64-bit difference hashes differ in at most this many bits.',
  ),
  STORAGE_LINK_SECRET: optional(z.string().min(16, 'must be at least 16 characters')).describe(
    "Signs the API's expiring links to archived avatars of a filesystem store (16+ characters). Unset: a random key per API process, so links do not survive a restart or cross replicas.",
  ),
  TEMPORAL_UI_URL: optional(httpUrl).describe(
    'Base URL of the Temporal Web UI (e.g. http://localhost:8233); API answers then link to the run there.',
  ),
  CALLBACK_SIGNING_SECRET: optional(z.string().min(16, 'must be at least 16 characters')).describe(
    'The key each tenant\u2019s callback secret derives from (API and workers, 16+ characters): `callbackUrl` deliveries are signed with the tenant\u2019s own secret, which it reads from GET /v1/callbacks/secret; without it `callbackUrl` is refused.',
  ),
  CALLBACK_SIGNING_SECRET_PREVIOUS: optional(z.string().min(16, 'must be at least 16 characters')).describe(
    'The callback secret being rotated out: deliveries carry a signature with each key until it is unset.',
  ),
  CALLBACK_LEGACY_SIGNATURE: withDefault(booleanFlag, 'false').describe(
    'Also send the old `X-Avatar-Signature: t=…,v1=<hex>` header beside the Standard Webhooks headers (for one release).',
  ),
  WEBHOOK_SIGNING_KEY: optional(z.string().min(32, 'must be at least 32 characters')).describe(
    "Server key that every registered webhook endpoint's `whsec_` secret is derived from (API and workers, 32+ characters); without it `POST /v1/webhooks` is refused.",
  ),
  WEBHOOK_LOG_RETENTION_DAYS: withDefault(positiveInt, 14).describe(
    'Days a webhook delivery (with its attempts) stays in the delivery log.',
  ),
  CALLBACK_PRIVATE_HOSTS: withDefault(list(','), '').describe(
    'Hosts whose private or loopback addresses callbacks may reach, comma separated (public hosts need no listing).',
  ),
  AVATAR_PRIVATE_HOSTS: withDefault(hostList, '').describe(
    "Hosts (on any port) whose private or loopback addresses avatar downloads may reach, besides PROVIDER_BASE_URL's origin (scheme, host and port), which is always trusted; any other host must resolve to public addresses only.",
  ),
  WORKER_MAX_CONCURRENT_ACTIVITIES: withDefault(positiveInt, 50).describe(
    "Activity slots of a process's pipeline-queue and provider-queue workers, each (the check worker has CHECK_WORKER_CONCURRENCY).",
  ),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: withDefault(positiveInt, 20).describe(
    'Workflow task slots per worker.',
  ),
  WORKER_MAX_CACHED_WORKFLOWS: withDefault(positiveInt, DEFAULT_MAX_CACHED_WORKFLOWS).describe(
    'Sticky cache size: runs a worker holds without replaying them, and so a campaign\'s bound on subjects in flight per worker (see docs/operations.md, "Worker memory").',
  ),
  WORKER_SHUTDOWN_GRACE_MS: withDefault(positiveInt, 30_000).describe(
    'How long a stopping worker lets running activities finish, in ms.',
  ),
  TEMPORAL_DEPLOYMENT_NAME: withDefault(
    z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^.]+$/, 'must not contain "."'),
    'avatar-pipeline',
  ).describe("Worker Deployment the workers belong to (the name Temporal's worker controller sets too)."),
  TEMPORAL_WORKER_BUILD_ID: optional(z.string().min(1).max(255)).describe(
    "This build's version within the deployment (e.g. the image tag). Unset: the workers are unversioned (local default).",
  ),
  CAMPAIGN_MAX_IN_FLIGHT: withDefault(
    z.union([z.literal('auto'), positiveInt]),
    DEFAULT_CAMPAIGN_MAX_IN_FLIGHT,
  ).describe(
    "Child pipelines a campaign keeps running at once unless it says otherwise: `auto` sizes the window from the provider's signals; a number caps that window.",
  ),
});
export type Env = z.output<typeof envSchema>;

import { randomBytes } from 'node:crypto';
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Client } from '@temporalio/client';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { API_FIXED_LIMITS, capConnections, serverOptions } from '../http/server-limits';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { ApiLimits, AppConfig } from '../config/load-config';
import { ApiError } from './api-error';
import { createApiContext, type ApiConfig, type ApiContext } from './api-context';
import { credentialsOf } from '../config/api-credentials';
import { tenantSettingsOf } from '../config/tenants';
import { DEFAULT_SELFIE_RETENTION } from '@avatar-pipeline/client/config/selfie-retention';
import { AccessTokenSigner, redactAccessToken } from './access-tokens';
import { apiTokenProblems, refuseCredential } from './bearer-auth';
import { callerIdentifier, installCallerAuth } from './caller-auth';
import { registerCampaignRoutes } from '../campaign/api/routes';
import { registerConsoleRoutes } from './console-routes';
import { declareCommonResponses } from './common-responses';
import { answerRouterRefusal, installErrorHandling } from './error-handler';
import { LiveLists } from './live-lists';
import { ProgressHub, queryFollower } from './progress-hub';
import { registerOpenApi } from './openapi';
import { packageVersion } from './package-version';
import { BlobLinkSigner, MAX_LINK_TOKEN_LENGTH, openBlobStore } from '../storage';
import { registerAccessTokenRoutes } from './routes/access-tokens';
import { registerArchiveRoute } from './routes/archive';
import { registerCancelPipelineRoute } from './routes/cancel-pipeline';
import { registerReviewLinkRoute } from './routes/review-links';
import { registerReviewPipelineRoute } from './routes/review-pipeline';
import { registerForgetSubjectRoute } from './routes/forget-subject';
import { registerHealthRoutes } from './routes/health';
import { registerListPipelinesRoute } from './routes/list-pipelines';
import { registerModelRunRoutes } from './routes/model-runs';
import { registerPipelineEventsRoute } from './routes/pipeline-events';
import { registerWebhookRoutes } from './routes/webhooks';
import { registerPipelineStatusRoute } from './routes/pipeline-status';
import { registerStyleAvatarsZipRoute } from './routes/style-avatars-zip';
import { registerProviderModelRoutes } from './routes/provider-models';
import { registerStartPipelineRoute } from './routes/start-pipeline';
import { registerStylesRoute } from './routes/styles';
import { registerUsageRoute } from './routes/usage';
import { answerUndeclaredMethods } from './undeclared-methods';
import { startUploadJanitor } from './upload-janitor';

export interface ApiServerOptions {
  config: ApiConfig & { provider?: AppConfig['provider'] };
  /** Temporal client for the configured namespace; the caller owns (and closes) its connection. */
  client: Client;
  /** Defaults to a provider client built from `config.provider`. */
  provider?: ApiContext['provider'];
  /** Fastify logger options (pino); authorization headers are always redacted. Default: no logging. */
  logger?: boolean | FastifyLoggerSettings;
}

type FastifyLoggerSettings = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

/** What a client may use when the configuration says nothing (the API_* variables' defaults). */
export const DEFAULT_API_LIMITS: ApiLimits = {
  requestTimeoutMs: 120_000,
  maxConnections: 1024,
  maxConnectionsPerClient: 64,
  rateLimitPerMinute: 600,
  eventStreamsPerRun: 50,
  eventStreamsPerToken: 20,
};

/** Headers that carry credentials: never written to logs. */
const REDACTED = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]'];

/**
 * The workflow starter API: a Fastify instance with zod validation and serialization, the routes
 * under /v1 behind bearer tokens, health checks and the OpenAPI document and docs. Call
 * `listen()` on it; `close()` stops it (the Temporal connection stays the caller's).
 * Refuses to build without tokens.
 */
export async function createApiServer(options: ApiServerOptions): Promise<FastifyInstance> {
  const { config } = options;
  checkApiConfig(config);
  const provider = options.provider ?? providerFrom(config.provider);
  const limits = { ...DEFAULT_API_LIMITS, ...config.api.limits };
  const serverLimits = { ...API_FIXED_LIMITS, ...limits };
  const app = Fastify({
    logger: loggerSettings(options.logger),
    ...serverOptions(serverLimits),
    // Archived-avatar links carry a signed token in the path, longer than the router's default
    // bound (100) for any real key; the bound is the longest token a link can have.
    routerOptions: { maxParamLength: MAX_LINK_TOKEN_LENGTH },
    frameworkErrors: answerRouterRefusal,
  });
  capConnections(app.server, serverLimits);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  answerUndeclaredMethods(app);
  declareCommonResponses(app);
  installErrorHandling(app);
  // Bodies are JSON or multipart only; anything else (text/plain included) is answered 415.
  app.removeContentTypeParser('text/plain');
  replaceJsonParser(app);
  await app.register(fastifyMultipart);
  await registerOpenApi(app, { version: packageVersion(), maxFileBytes: config.api.maxFileBytes });

  const store = openBlobStore(config.storage);
  app.addHook('onClose', () => store.close());
  const streamLimits = { perRun: limits.eventStreamsPerRun, perToken: limits.eventStreamsPerToken };
  const ctx = createApiContext({
    config,
    client: options.client,
    provider,
    store,
    linkSigner: new BlobLinkSigner(config.storage.linkSecret ?? randomBytes(32)),
    accessTokens: new AccessTokenSigner(config.api.accessTokenSecret),
    // The tenants file's share of each tenant's campaigns (fairness weight, priority ceiling).
    tenantCampaignSettings: (tenant) => {
      const settings = tenantSettingsOf(config, tenant);
      return { fairnessWeight: settings.fairnessWeight, priorityCeiling: settings.campaignPriorityCeiling };
    },
    progressHub: new ProgressHub(queryFollower(options.client), streamLimits),
    liveLists: new LiveLists(streamLimits),
  });
  app.addHook('onClose', async () => {
    ctx.progressHub.close();
    ctx.liveLists.close();
  });
  // Uploaded selfies are deleted when their pipeline no longer needs them (SELFIE_RETENTION).
  const janitor = startUploadJanitor({
    store,
    client: options.client,
    retention: config.api.selfieRetention ?? DEFAULT_SELFIE_RETENTION,
    log: (message) => app.log.warn(message),
  });
  app.addHook('onClose', async () => janitor.stop());
  registerHealthRoutes(app, ctx);
  registerArchiveRoute(app, ctx.store, ctx.linkSigner);
  await registerConsoleRoutes(app, { storage: config.storage });
  const identityOf = callerIdentifier({
    credentials: credentialsOf(config.api.tokens),
    tenants: config.tenants,
    accessTokens: ctx.accessTokens,
  });
  await app.register(
    async (v1) => {
      // In each credential's rate bucket (Identity.rateBucket: per tenant where the tenants file
      // sets its requestsPerMinute, else per API token, and per tenant for its minted access
      // tokens); anything else counts against the client's address, so guessing tokens is slowed
      // as well. Checked before the token.
      await v1.register(fastifyRateLimit, {
        max: (request) => {
          const identity = identityOf(request);
          return typeof identity === 'string'
            ? limits.rateLimitPerMinute
            : (identity.requestsPerMinute ?? limits.rateLimitPerMinute);
        },
        timeWindow: 60_000,
        keyGenerator: (request) => {
          const identity = identityOf(request);
          if (typeof identity === 'string') return `address:${request.ip}`;
          return identity.rateBucket;
        },
        errorResponseBuilder: (request, context) => {
          const identity = identityOf(request);
          const whose =
            typeof identity === 'string'
              ? 'for each token'
              : identity.requestsPerMinute !== undefined
                ? "for all of this tenant's tokens together"
                : identity.access !== undefined
                  ? "for all of this tenant's access tokens together"
                  : 'for each token';
          return new ApiError(
            429,
            `Too many requests: at most ${context.max} a minute ${whose}; retry in ${context.after}`,
          );
        },
      });
      // Both hook each route as it is added: the credential check goes after the rate limit on each route.
      installCallerAuth(v1, identityOf, refuseCredential);
      registerStartPipelineRoute(v1, ctx);
      registerListPipelinesRoute(v1, ctx);
      registerPipelineStatusRoute(v1, ctx);
      registerPipelineEventsRoute(v1, ctx);
      registerStyleAvatarsZipRoute(v1, ctx);
      registerCancelPipelineRoute(v1, ctx);
      registerReviewPipelineRoute(v1, ctx);
      registerReviewLinkRoute(v1, ctx);
      registerStylesRoute(v1, ctx);
      registerProviderModelRoutes(v1, ctx);
      registerModelRunRoutes(v1, ctx);
      registerForgetSubjectRoute(v1, ctx);
      registerCampaignRoutes(v1, ctx);
      registerAccessTokenRoutes(v1, ctx);
      registerWebhookRoutes(v1, ctx);
      registerUsageRoute(v1, ctx);
    },
    { prefix: '/v1' },
  );
  return app;
}

/**
 * Fastify's own JSON parser (prototype-poisoning keys refused), answering what is wrong: a syntax
 * error with the parser's words, a `__proto__` or `constructor.prototype` key by name, instead of
 * one "not valid JSON" for both.
 */
function replaceJsonParser(app: FastifyInstance): void {
  const secure = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    // Fastify's default JSON parser answers through `done` (its type also allows a promise-returning
    // parser, whose promise this call would carry: there is none to wait for).
    void secure(request, text, (err, value) => {
      if (!err || (err as { code?: string }).code !== 'FST_ERR_CTP_INVALID_JSON_BODY') {
        done(err, value);
        return;
      }
      try {
        JSON.parse(text);
      } catch (syntax) {
        const reason = syntax instanceof Error ? syntax.message : String(syntax);
        done(new ApiError(400, `The body is not valid JSON: ${reason}`), undefined);
        return;
      }
      done(
        new ApiError(
          400,
          'The body holds a "__proto__" or "constructor.prototype" key: "__proto__" and "constructor" keys are not allowed',
        ),
        undefined,
      );
    });
  });
}

function checkApiConfig(config: ApiConfig): void {
  const problems: { variable: string; reason: string }[] = [];
  if (config.api.tokens.length === 0) {
    problems.push({
      variable: 'API_TOKENS',
      reason: 'is empty: the API refuses to run without bearer tokens (set API_TOKENS=token1,token2)',
    });
  }
  for (const reason of apiTokenProblems(config.api.tokens)) problems.push({ variable: 'API_TOKENS', reason });
  if (problems.length > 0) throw new ConfigError(problems);
}

function providerFrom(provider: AppConfig['provider'] | undefined): ApiContext['provider'] {
  if (!provider) throw new Error('createApiServer needs config.provider or a provider client');
  return new ProviderClient(provider);
}

function loggerSettings(logger: ApiServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const base = logger === true ? {} : logger;
  return {
    ...base,
    redact: { paths: REDACTED, censor: '[redacted]' },
    serializers: {
      // Headers help when tracing a request (idempotency keys, user agents); credentials are redacted
      // above, and a browser access token in the query here.
      req: (req: { method: string; url: string; headers: Record<string, unknown>; ip?: string }) => ({
        method: req.method,
        url: redactAccessToken(req.url),
        headers: req.headers,
        remoteAddress: req.ip,
      }),
      ...(typeof base === 'object' && 'serializers' in base ? base.serializers : {}),
    },
  };
}

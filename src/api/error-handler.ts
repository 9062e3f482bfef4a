import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { NamespaceNotSetUpError } from '@avatar-pipeline/client/client/start-run';
import { SelfieChecksUnansweredError } from '@avatar-pipeline/client/client/selfie-check';
import { ApiError, type ApiIssue } from './api-error';
import { InputError } from '@avatar-pipeline/client/errors';
import { BudgetExceededError } from '@avatar-pipeline/client/client/budget';

/** Friendlier words for the errors of Fastify and its multipart parser, by code. */
const KNOWN_ERRORS: Record<string, { status: number; message: string; path?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    message: 'Content-Type must be application/json or multipart/form-data',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Content-Length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'The JSON body is empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  FST_FILES_LIMIT: { status: 413, message: 'Too many files', path: 'selfies' },
  FST_PARTS_LIMIT: { status: 413, message: 'Too many form parts' },
  FST_FIELDS_LIMIT: { status: 413, message: 'Too many form fields' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, message: 'A file is too large', path: 'selfies' },
  FST_PROTO_VIOLATION: { status: 400, message: 'A form field name is not allowed' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, message: 'The request is not multipart/form-data' },
  FST_MP_PREMATURE_CLOSE: { status: 400, message: 'The upload ended before the form was complete' },
};

/** What the multipart reader (busboy) throws for a body that breaks off or is not well formed; none carries a code. */
const MALFORMED_MULTIPART = /^(Unexpected end of multipart data|Multipart: Boundary not found)$/;

/**
 * One error shape for every answer that is not a success: `{ error, issues: [{ path, message }] }`.
 * 400 for a request that cannot be parsed, 422 for one that parses but breaks the schema, and the
 * status of the condition otherwise (401, 402: past the tenant's budget, 404, 409, 413, 415, 502, 503: Temporal's namespace not set
 * up, the selfie checks unanswered). Unexpected errors are
 * logged and answered 500 without details.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ApiError) return reply.code(err.statusCode).send(err.body());
    if (err instanceof InputError) return reply.code(422).send(ApiError.fromInputError(err).body());
    if (err instanceof BudgetExceededError) return reply.code(402).send({ error: err.message, issues: [] });
    if (err instanceof NamespaceNotSetUpError || err instanceof SelfieChecksUnansweredError)
      return reply.code(503).send({ error: err.message, issues: [] });
    if (hasZodFastifySchemaValidationErrors(err)) {
      const context = err.validationContext ?? 'body';
      const issues: ApiIssue[] = err.validation.map((v) => {
        const field = v.instancePath.split('/').filter((s) => s !== '');
        return {
          path: (context === 'body' ? field : [context, ...field]).join('.'),
          message: v.message ?? 'is invalid',
        };
      });
      return reply.code(422).send(ApiError.invalid(issues).body());
    }
    const known = err.code ? KNOWN_ERRORS[err.code] : undefined;
    if (known) {
      return reply.code(known.status).send({
        error: known.message,
        issues: known.path ? [{ path: known.path, message: known.message.toLowerCase() }] : [],
      });
    }
    if (!err.code && MALFORMED_MULTIPART.test(err.message)) {
      return reply.code(400).send({ error: 'The upload ended before the form was complete', issues: [] });
    }
    // JSON syntax errors and other parser refusals carry a 4xx status.
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ error: `Malformed request: ${err.message}`, issues: [] });
    }
    request.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: 'Internal error', issues: [] });
  });

  app.setNotFoundHandler((request, reply) => {
    const answer = noRoute(request.method, request.url);
    return reply.code(answer.statusCode).send({ error: answer.message, issues: [] });
  });
}

/** The answer for a path the API does not serve. */
export const noRoute = (method: string, url: string): ApiError =>
  new ApiError(404, `No route ${method} ${url.split('?')[0]}`);

/**
 * The router's own refusals (Fastify's frameworkErrors), in the API's error shape and with a status
 * the routes declare: a path that is not valid percent-encoded UTF-8 is answered 400, and a path
 * parameter longer than the router takes (longer than any the schemas allow) 422 naming it, or on
 * /archive/ the 404 of any link the API did not make.
 */
export function answerRouterRefusal(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? '';
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    if (path.startsWith('/archive/')) {
      void reply.code(404).send({ error: 'No such archived image', issues: [] });
      return;
    }
    const issue = { path: 'params', message: 'a path parameter is longer than this route accepts' };
    void reply.code(422).send(ApiError.invalid([issue]).body());
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    void reply.code(400).send({ error: 'The path is not valid percent-encoded UTF-8', issues: [] });
    return;
  }
  request.log.error({ err: error }, 'request failed');
  void reply.code(500).send({ error: 'Internal error', issues: [] });
}

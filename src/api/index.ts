export { createApiServer, type ApiServerOptions } from './server';
export type { ApiConfig } from './api-context';
export { ApiError, type ApiIssue, type ErrorBody } from './api-error';
export type { PipelineStatus, PipelineState } from './response-schemas';

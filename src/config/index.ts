export * from '@avatar-pipeline/client/config/config-error';
export * from '@avatar-pipeline/client/config/env-schema';
export * from './load-config';
export * from '@avatar-pipeline/client/config/starter-settings';
export * from '@avatar-pipeline/client/config/run-placement';

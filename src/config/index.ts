export * from './config-error';
export * from './env-schema';
export * from './load-config';
export * from './starter-settings';
export * from './run-placement';

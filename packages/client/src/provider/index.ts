export * from './client';
export * from './endpoints';
export * from './errors';
export * from './image-format';
export * from './request-schemas';
export * from './schemas';
export * from './status';
export * from './upload-image';
export type { CallOptions, CallRecord } from './http-transport';

import { z } from 'zod';

/**
 * The provider's endpoints, named after the typed client's methods so stats, fault filters and
 * client logs speak the same words.
 */
export const endpointNameSchema = z.enum([
  'createModel',
  'createOrder',
  'listOrders',
  'listModels',
  'listModelOrders',
  'uploadTrainingImage',
  'listTrainingImages',
  'selectTrainingImage',
  'runOrder',
  'getOrderStatus',
  'listAvatarPage',
  'listStyles',
]);
export type EndpointName = z.infer<typeof endpointNameSchema>;

/** Requests that change provider state: the ones whose response the lost-response fault drops after committing. */
export const WRITE_ENDPOINTS: ReadonlySet<EndpointName> = new Set<EndpointName>([
  'createModel',
  'createOrder',
  'uploadTrainingImage',
  'selectTrainingImage',
  'runOrder',
]);

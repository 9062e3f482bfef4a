import { PROVIDER_ENDPOINTS, type EndpointName } from '@avatar-pipeline/client/provider/endpoints';
import type { ProviderHandler } from './handlers/handler-context';
import { listAvatarPage, listStyles } from './handlers/avatar-style-handlers';
import { createModel, createOrder, listModelOrders, listModels, listOrders } from './handlers/order-handlers';
import { getOrderStatus, runOrder } from './handlers/run-status-handlers';
import {
  listTrainingImages,
  selectTrainingImage,
  uploadTrainingImage,
} from './handlers/training-image-handlers';

/** The simulator's implementation of each endpoint; the method and path come from the provider's endpoint table. */
const HANDLERS: Record<EndpointName, ProviderHandler> = {
  createModel,
  createOrder,
  listOrders,
  listModels,
  listModelOrders,
  uploadTrainingImage,
  listTrainingImages,
  selectTrainingImage,
  runOrder,
  getOrderStatus,
  listAvatarPage,
  listStyles,
};

export interface SimulatorRoute {
  endpoint: EndpointName;
  method: 'GET' | 'POST';
  /** Path relative to the base path; `{name}` segments are parameters. */
  template: string;
  writes: boolean;
  handler: ProviderHandler;
}

export const SIMULATOR_ROUTES: readonly SimulatorRoute[] = (
  Object.keys(PROVIDER_ENDPOINTS) as EndpointName[]
).map((endpoint) => {
  const { method, path, writes } = PROVIDER_ENDPOINTS[endpoint];
  return { endpoint, method, template: path, writes, handler: HANDLERS[endpoint] };
});

import type { EndpointName } from './endpoints';
import type { ProviderHandler } from './handlers/handler-context';
import { listAvatarPage, listStyles } from './handlers/avatar-style-handlers';
import { createModel, createOrder, listModelOrders, listModels, listOrders } from './handlers/order-handlers';
import { getOrderStatus, runOrder } from './handlers/run-status-handlers';
import {
  listTrainingImages,
  selectTrainingImage,
  uploadTrainingImage,
} from './handlers/training-image-handlers';

export interface ProviderRoute {
  endpoint: EndpointName;
  method: 'GET' | 'POST';
  /** Path relative to the base path; `:name` segments are parameters. */
  template: string;
  handler: ProviderHandler;
}

/** The spec's endpoints. Run and select use GET, as the spec says. */
export const PROVIDER_ROUTES: readonly ProviderRoute[] = [
  { endpoint: 'createModel', method: 'POST', template: '/order/create/model', handler: createModel },
  { endpoint: 'createOrder', method: 'POST', template: '/order/create', handler: createOrder },
  { endpoint: 'listOrders', method: 'GET', template: '/order/list', handler: listOrders },
  { endpoint: 'listModels', method: 'GET', template: '/model/list', handler: listModels },
  {
    endpoint: 'listModelOrders',
    method: 'GET',
    template: '/model/:orderId/order/list',
    handler: listModelOrders,
  },
  {
    endpoint: 'uploadTrainingImage',
    method: 'POST',
    template: '/order/:orderId/training-images/upload',
    handler: uploadTrainingImage,
  },
  {
    endpoint: 'listTrainingImages',
    method: 'GET',
    template: '/order/:orderId/training-images/list',
    handler: listTrainingImages,
  },
  {
    endpoint: 'selectTrainingImage',
    method: 'GET',
    template: '/order/:orderId/training-images/:selfieId/select',
    handler: selectTrainingImage,
  },
  { endpoint: 'runOrder', method: 'GET', template: '/order/:orderId/run', handler: runOrder },
  { endpoint: 'getOrderStatus', method: 'GET', template: '/order/:orderId/status', handler: getOrderStatus },
  {
    endpoint: 'listAvatarPage',
    method: 'GET',
    template: '/model/:orderId/avatars/:page',
    handler: listAvatarPage,
  },
  { endpoint: 'listStyles', method: 'GET', template: '/styles/list', handler: listStyles },
];

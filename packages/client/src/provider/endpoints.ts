import { z } from 'zod';
import {
  avatarPageSchema,
  orderListSchema,
  orderSchema,
  orderStatusSchema,
  selectResultSchema,
  styleListSchema,
  trainingImageListSchema,
  trainingImageSchema,
} from './schemas';

/**
 * The provider's REST interface as data (docs/provider-api.md describes it in prose). The client
 * builds its requests from this table and the simulator routes and validates by it, so the two
 * speak the same interface by construction.
 */

/** Wire bodies, as the provider takes them. The client checks its callers' input more strictly first. */
const wireStyles = z.array(z.number().int().positive()).min(1);
const wireGender = z.union([z.literal(1), z.literal(2)]);

export const createModelBodySchema = z.object({ styles: wireStyles, gender: wireGender });
export const createOrderBodySchema = z.object({
  styles: wireStyles,
  gender: wireGender,
  parent: z.number().int().positive(),
});
/** In the upload body gender is a string ("1" or "2"), unlike in order bodies. */
export const uploadTrainingImageBodySchema = z.object({ gender: z.enum(['1', '2']), image: z.string() });

interface EndpointDefinition {
  method: 'GET' | 'POST';
  /** Below the base URL; `{name}` segments are path parameters. Also the endpoint's label in logs and metrics. */
  path: string;
  /** The JSON body's schema; undefined for endpoints without a body. */
  request: z.ZodType | undefined;
  /** Accepts every known variant of the answer and outputs its canonical shape. */
  response: z.ZodType;
  /** Changes provider state: a lost answer may hide a performed request. */
  writes: boolean;
}

export const PROVIDER_ENDPOINTS = {
  createModel: {
    method: 'POST',
    path: '/order/create/model',
    request: createModelBodySchema,
    response: orderSchema,
    writes: true,
  },
  createOrder: {
    method: 'POST',
    path: '/order/create',
    request: createOrderBodySchema,
    response: orderSchema,
    writes: true,
  },
  listOrders: {
    method: 'GET',
    path: '/order/list',
    request: undefined,
    response: orderListSchema,
    writes: false,
  },
  listModels: {
    method: 'GET',
    path: '/model/list',
    request: undefined,
    response: orderListSchema,
    writes: false,
  },
  listModelOrders: {
    method: 'GET',
    path: '/model/{id}/order/list',
    request: undefined,
    response: orderListSchema,
    writes: false,
  },
  uploadTrainingImage: {
    method: 'POST',
    path: '/order/{id}/training-images/upload',
    request: uploadTrainingImageBodySchema,
    response: trainingImageSchema,
    writes: true,
  },
  listTrainingImages: {
    method: 'GET',
    path: '/order/{id}/training-images/list',
    request: undefined,
    response: trainingImageListSchema,
    writes: false,
  },
  /** A GET that changes state, as the provider defines it. */
  selectTrainingImage: {
    method: 'GET',
    path: '/order/{id}/training-images/{selfie_id}/select',
    request: undefined,
    response: selectResultSchema,
    writes: true,
  },
  /** A GET that starts the order, as the provider defines it. */
  runOrder: {
    method: 'GET',
    path: '/order/{id}/run',
    request: undefined,
    response: orderStatusSchema,
    writes: true,
  },
  getOrderStatus: {
    method: 'GET',
    path: '/order/{id}/status',
    request: undefined,
    response: orderStatusSchema,
    writes: false,
  },
  listAvatarPage: {
    method: 'GET',
    path: '/model/{id}/avatars/{page}',
    request: undefined,
    response: avatarPageSchema,
    writes: false,
  },
  listStyles: {
    method: 'GET',
    path: '/styles/list',
    request: undefined,
    response: styleListSchema,
    writes: false,
  },
} as const satisfies Record<string, EndpointDefinition>;

export type ProviderEndpoints = typeof PROVIDER_ENDPOINTS;
export type EndpointName = keyof ProviderEndpoints;
export type ProviderEndpoint<N extends EndpointName = EndpointName> = ProviderEndpoints[N];

/** Endpoint names, as the simulator's fault filters and statistics take them. */
export const endpointNameSchema = z.enum(
  Object.keys(PROVIDER_ENDPOINTS) as [EndpointName, ...EndpointName[]],
);

/** The names of the `{name}` segments of a path template, as a union of string literals. */
export type PathParamName<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamName<Rest>
  : never;
export type PathParams<N extends EndpointName> = Record<PathParamName<ProviderEndpoint<N>['path']>, number>;

/** The concrete path for an endpoint, e.g. `/order/12/status` for `getOrderStatus` with `{ id: 12 }`. */
export function endpointPath<N extends EndpointName>(name: N, params: PathParams<N>): string {
  const values = params as Record<string, number>;
  return PROVIDER_ENDPOINTS[name].path.replace(/\{(\w+)\}/g, (_match, param: string) => {
    const value = values[param];
    if (value === undefined) throw new Error(`${name}: path parameter ${param} is missing`);
    return encodeURIComponent(String(value));
  });
}

import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import {
  endpointPath,
  PROVIDER_ENDPOINTS,
  type EndpointName,
} from '@avatar-pipeline/client/provider/endpoints';
import { HttpTransport } from '@avatar-pipeline/client/provider/http-transport';
import { SIMULATOR_ROUTES } from '../../../src/simulator/provider-routes';
import { InputError } from '@avatar-pipeline/client/errors';

const NAMES = Object.keys(PROVIDER_ENDPOINTS) as EndpointName[];

describe('the provider endpoint table', () => {
  it.each(NAMES)(
    '%s has one typed client method and one simulator route of the same method and path',
    (name) => {
      expect(typeof (ProviderClient.prototype as unknown as Record<string, unknown>)[name]).toBe('function');
      const routes = SIMULATOR_ROUTES.filter((route) => route.endpoint === name);
      expect(routes).toHaveLength(1);
      expect(routes[0]).toMatchObject({
        method: PROVIDER_ENDPOINTS[name].method,
        template: PROVIDER_ENDPOINTS[name].path,
      });
    },
  );

  it('the client has no endpoint method the table does not name', () => {
    const methods = Object.getOwnPropertyNames(ProviderClient.prototype).filter(
      (name) => name !== 'constructor',
    );
    expect(methods.sort()).toEqual([...NAMES].sort());
  });

  it('fills path parameters by name', () => {
    expect(endpointPath('selectTrainingImage', { id: 12, selfie_id: 7 })).toBe(
      '/order/12/training-images/7/select',
    );
    expect(endpointPath('listAvatarPage', { id: 3, page: 0 })).toBe('/model/3/avatars/0');
    expect(endpointPath('listStyles', {})).toBe('/styles/list');
  });

  it('refuses a body that does not fit the wire schema before sending anything', async () => {
    const fetch = jest.fn<Promise<Response>, Parameters<typeof globalThis.fetch>>();
    const transport = new HttpTransport({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k',
      timeoutMs: 1000,
      fetch,
    });
    const body = { gender: 1, image: 'abc' } as unknown as { gender: '1'; image: string };
    const err: unknown = await transport
      .send({ endpoint: 'uploadTrainingImage', params: { id: 1 }, body })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues[0]?.path).toBe('body.gender');
    expect(fetch).not.toHaveBeenCalled();
  });
});

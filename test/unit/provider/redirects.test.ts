import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { type ProviderError, ProviderInvalidResponseError } from '@avatar-pipeline/client/provider/errors';
import { reply, startTestHttpServer, type TestHttpServer } from '../../fixtures/http-test-server';
import { providerFailure } from '../../helpers/provider-failure';

/*
 * The provider client never follows a redirect: its target was never configured, so following it
 * would send the key and a selfie to another host, or take another host's page for the answer.
 */

let provider: TestHttpServer;
let elsewhere: TestHttpServer;

beforeAll(async () => {
  provider = await startTestHttpServer();
  elsewhere = await startTestHttpServer(reply(200, [{ id: 1, title: 'Internal page' }]));
});
afterAll(async () => {
  await provider.close();
  await elsewhere.close();
});
beforeEach(() => {
  provider.requests.length = 0;
  elsewhere.requests.length = 0;
});

const client = () => new ProviderClient({ baseUrl: provider.origin, apiKey: 'secret-key', timeoutMs: 5_000 });

function redirectTo(status: number) {
  const target = `${elsewhere.origin}/internal/styles`;
  return reply(status, `Redirecting to ${target}`, { location: target });
}

function expectRefusedRedirect(err: ProviderError, status: number) {
  expect(err).toBeInstanceOf(ProviderInvalidResponseError);
  expect(err.httpStatus).toBe(status);
  expect(err.message).toContain(`HTTP ${status}`);
  expect(err.message).toContain('redirect');
  // Neither the target nor the body that repeats it reaches the message an API caller may see.
  expect(err.message).not.toContain(elsewhere.origin);
  expect(err.providerMessage).toBeUndefined();
}

describe('a redirect from the provider', () => {
  it.each([307, 308])('%i on an upload does not send the selfie to the other host', async (status) => {
    provider.handle(redirectTo(status));
    const err = await providerFailure(
      client().uploadTrainingImage(12, { gender: 1, image: 'data:image/png;base64,AAAA' }),
    );
    expectRefusedRedirect(err, status);
    expect(provider.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it.each([301, 302, 303])('%i on the styles list is refused, not taken as the list', async (status) => {
    provider.handle(redirectTo(status));
    const err = await providerFailure(client().listStyles());
    expectRefusedRedirect(err, status);
    expect(elsewhere.requests).toHaveLength(0);
  });
});

import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createProviderActivities } from '../../../activities/provider-activities';
import { activityFailureInterceptor, toActivityFailure } from '../../../activities/provider-failure';
import { NON_RETRYABLE_FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';
import { InputError } from '@avatar-pipeline/client/errors';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import type { ProviderError } from '@avatar-pipeline/client/provider/errors';
import {
  ProviderAuthError,
  ProviderBadRequestError,
  ProviderInvalidResponseError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
} from '@avatar-pipeline/client/provider/errors';
import { startSimulator } from '../../../src/simulator';
import { quietLogger } from '../../helpers/quiet-logger';

const where = { endpoint: '/models', method: 'GET' };

/** Runs `body` as an activity through the worker's interceptor and returns what it failed with. */
async function failureThroughInterceptor(body: () => Promise<unknown>): Promise<unknown> {
  const env = new MockActivityEnvironment(
    {},
    { logger: quietLogger, interceptors: [activityFailureInterceptor] },
  );
  return env.run(body).then(
    () => {
      throw new Error('expected the activity to fail');
    },
    (err: unknown) => err,
  );
}

/**
 * Provider errors become Temporal failures in one place, the activity interceptor every worker
 * registers; activities throw the provider's own errors and never map them themselves.
 */
describe('the activity failure interceptor', () => {
  it.each<[string, ProviderError, string, boolean]>([
    ['auth', new ProviderAuthError('refused', { ...where, httpStatus: 401 }), 'Provider:auth', true],
    [
      'bad request',
      new ProviderBadRequestError('refused', { ...where, httpStatus: 422 }),
      'Provider:bad-request',
      true,
    ],
    [
      'unavailable',
      new ProviderUnavailableError('down', { ...where, httpStatus: 503 }),
      'Provider:unavailable',
      false,
    ],
    [
      'invalid response',
      new ProviderInvalidResponseError('garbled', where),
      'Provider:invalid-response',
      false,
    ],
  ])('maps a %s error of any activity to its failure type', async (_name, error, type, nonRetryable) => {
    const failure = await failureThroughInterceptor(() => Promise.reject(error));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({
      type,
      nonRetryable,
      details: [{ kind: error.kind, endpoint: '/models' }],
    });
  });

  it("honours a 429's Retry-After as the next retry's delay", async () => {
    const error = new ProviderRateLimitedError('slow down', {
      ...where,
      httpStatus: 429,
      retryAfterMs: 7_000,
    });
    const failure = await failureThroughInterceptor(() => Promise.reject(error));
    expect(failure).toMatchObject({
      type: 'Provider:rate-limited',
      nonRetryable: false,
      nextRetryDelay: 7_000,
    });
  });

  it('makes bad input final, with every issue', async () => {
    const failure = await failureThroughInterceptor(() =>
      Promise.reject(InputError.field('images[0]', 'is not a JPEG or PNG image')),
    );
    expect(failure).toMatchObject({
      type: 'InvalidInput',
      nonRetryable: true,
      details: [{ issues: [{ path: 'images[0]', message: 'is not a JPEG or PNG image' }] }],
    });
  });

  it('passes any other error through unchanged', async () => {
    const error = new Error('a bug');
    expect(await failureThroughInterceptor(() => Promise.reject(error))).toBe(error);
  });

  it('marks non-retryable exactly the failure types the retry policies list (src/contracts)', () => {
    const errors = [
      new ProviderAuthError('x', where),
      new ProviderBadRequestError('x', where),
      new ProviderRateLimitedError('x', where),
      new ProviderUnavailableError('x', where),
      new ProviderInvalidResponseError('x', where),
      InputError.field('x', 'y'),
    ];
    const final = errors
      .map((e) => toActivityFailure(e) as ApplicationFailure)
      .filter((f) => f.nonRetryable)
      .map((f) => f.type);
    expect(final.sort()).toEqual([...NON_RETRYABLE_FAILURE_TYPES].sort());
  });

  it("leaves the activities' own errors to it: an activity run without it throws the provider's error", async () => {
    const sim = await startSimulator({ apiKey: 'the-right-key' });
    try {
      const activities = createProviderActivities({
        provider: new ProviderClient({ baseUrl: sim.url, apiKey: 'a-wrong-key', timeoutMs: 30_000 }),
        imageAccess: { roots: [], urlHosts: [] },
        providerScope: 'unit',
      });
      const bare = new MockActivityEnvironment({}, { logger: quietLogger });
      const raw = await bare.run(activities.getOrderStatus, { orderId: 1 }).catch((e: unknown) => e);
      expect(raw).toBeInstanceOf(ProviderAuthError);

      const mapped = await failureThroughInterceptor(() => activities.getOrderStatus({ orderId: 1 }));
      expect(mapped).toMatchObject({ type: 'Provider:auth', nonRetryable: true });
    } finally {
      await sim.stop();
    }
  });
});

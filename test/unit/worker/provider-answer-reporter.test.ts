import type { Client } from '@temporalio/client';
import { ProviderAnswerReporter } from '../../../src/worker/provider-answer-reporter';
import type { CallRecord } from '@avatar-pipeline/client/provider/http-transport';

const ok: CallRecord = {
  method: 'GET',
  endpoint: '/styles/list',
  outcome: 'ok',
  httpStatus: 200,
  durationMs: 1,
};
const limited = (retryAfterMs: number): CallRecord => ({
  method: 'GET',
  endpoint: '/styles/list',
  outcome: 'rate-limited',
  httpStatus: 429,
  durationMs: 1,
  retryAfterMs,
});

function fakeClient() {
  const calls: { workflowId: string; taskQueue: string; args: unknown[]; signalArgs: unknown[] }[] = [];
  const client = {
    workflow: {
      signalWithStart: async (_type: string, options: (typeof calls)[number]) => void calls.push(options),
    },
  } as unknown as Client;
  return { client, calls };
}

/** A reporter to the controller of queue `q-provider` (ceiling 20/s) that sends only when flushed or on a 429. */
function reporterWithFakeClient(rateLimitedDelayMs?: number) {
  const { client, calls } = fakeClient();
  const reporter = new ProviderAnswerReporter({
    client,
    controllerTaskQueue: 'q',
    providerTaskQueue: 'q-provider',
    ceiling: 20,
    intervalMs: 60_000,
    ...(rateLimitedDelayMs !== undefined ? { rateLimitedDelayMs } : {}),
  });
  return { reporter, calls };
}

describe('the provider answer reporter', () => {
  it('sends one batched report per flush, with the longest Retry-After, to the queue’s controller', async () => {
    const { reporter, calls } = reporterWithFakeClient();
    for (let i = 0; i < 50; i++) reporter.observe(ok);
    reporter.observe(limited(2_000));
    reporter.observe(limited(5_000));
    // A network failure is no answer from the provider: no quota signal.
    reporter.observe({ method: 'GET', endpoint: '/styles/list', outcome: 'unavailable', durationMs: 1 });
    await reporter.flush();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      workflowId: 'provider-rate:q-provider',
      taskQueue: 'q',
      args: [{ providerTaskQueue: 'q-provider', ceiling: 20 }],
      signalArgs: [{ accepted: 50, rateLimited: 2, retryAfterMs: 5_000, ceiling: 20 }],
    });
    await reporter.flush();
    expect(calls).toHaveLength(1);
    await reporter.stop();
  });

  it('sends a 429 at once, not at the next interval, with one early report for a burst', async () => {
    const { reporter, calls } = reporterWithFakeClient(20);
    reporter.observe(ok);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(calls).toHaveLength(0);
    for (let i = 0; i < 5; i++) reporter.observe(limited(1_000));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.signalArgs).toMatchObject([{ accepted: 1, rateLimited: 5 }]);
    await reporter.stop();
    expect(calls).toHaveLength(1);
  });
});

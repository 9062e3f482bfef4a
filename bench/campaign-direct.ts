/**
 * The baselines of bench/campaign.ts: the pipeline driven straight through the provider client,
 * without Temporal. Each call that gets a 429 waits for its Retry-After and tries again (a 5xx or
 * network error waits a second), which is what a careful script does; nothing else limits the rate.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AvatarPageWalk } from '../src/avatar-pages/avatar-page-walk';
import type { ProviderClient } from '@avatar-pipeline/client/provider/client';

import { ProviderRateLimitedError, ProviderUnavailableError } from '@avatar-pipeline/client/provider/errors';
import { readAvatarPage } from '../src/avatar-pages/collect-avatars';
import { toUploadImage } from '@avatar-pipeline/client/provider/upload-image';

export interface DirectSubject {
  styles: number[];
  gender: 1 | 2;
  image: Buffer;
}

export interface DirectOptions {
  /** First wait after a run, then between polls. */
  firstPollMs: number;
  pollMs: number;
  /** Stop early (the sequential loop runs on a time budget). */
  signal?: AbortSignal;
}

/** One subject, start to end: model, selfie, main image, training, then every style in parallel. */
export async function runSubjectDirect(
  provider: ProviderClient,
  subject: DirectSubject,
  options: DirectOptions,
): Promise<number> {
  const model = await patiently(
    () => provider.createModel({ styles: subject.styles, gender: subject.gender }),
    options,
  );
  const image = await patiently(
    () =>
      provider.uploadTrainingImage(model.id, { gender: subject.gender, image: toUploadImage(subject.image) }),
    options,
  );
  await patiently(() => provider.selectTrainingImage(model.id, image.id), options);
  await patiently(() => provider.runOrder(model.id), options);
  await untilDone(provider, model.id, options);
  const counts = await Promise.all(
    subject.styles.map(async (styleId) => {
      const order = await patiently(
        () => provider.createOrder({ styles: [styleId], gender: subject.gender, parent: model.id }),
        options,
      );
      await patiently(() => provider.runOrder(order.id), options);
      await untilDone(provider, order.id, options);
      const walk = new AvatarPageWalk<{ avatar_id: number }>((a) => a.avatar_id);
      for (let page = walk.next; page !== undefined; page = walk.next) {
        const p = page;
        walk.add(await patiently(() => readAvatarPage(provider, order.id, p, {}), options));
      }
      return walk.avatars.length;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function untilDone(provider: ProviderClient, orderId: number, options: DirectOptions): Promise<void> {
  await delay(options.firstPollMs, undefined, { signal: options.signal });
  for (;;) {
    const status = await patiently(() => provider.getOrderStatus(orderId), options);
    if (status.status === 'DONE') return;
    if (status.status === 'ERROR')
      throw new Error(`order ${orderId} ended in ERROR: ${status.message ?? ''}`);
    await delay(options.pollMs, undefined, { signal: options.signal });
  }
}

/** Retries a call on 429 (after Retry-After) and on 5xx/network errors (after a second). */
async function patiently<T>(call: () => Promise<T>, options: DirectOptions): Promise<T> {
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      return await call();
    } catch (err) {
      if (err instanceof ProviderRateLimitedError) {
        await delay(err.retryAfterMs ?? 1_000, undefined, { signal: options.signal });
      } else if (err instanceof ProviderUnavailableError) {
        await delay(1_000, undefined, { signal: options.signal });
      } else {
        throw err;
      }
    }
  }
}

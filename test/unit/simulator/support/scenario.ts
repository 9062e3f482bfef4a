import type { RunningSimulator } from '../../../../src/simulator';
import { callOk } from './provider-http';
import { asDataUri, jpegSelfie } from './selfies';

/** Contract-dialect shortcuts for tests that need an order in some state, not the steps themselves. */
export async function createModelWithSelfie(sim: RunningSimulator, gender: 1 | 2 = 1): Promise<number> {
  const model = await callOk<{ id: number }>(sim, 'POST', '/order/create/model', { styles: [3], gender });
  await callOk(sim, 'POST', `/order/${model.id}/training-images/upload`, {
    gender: String(gender),
    image: asDataUri(jpegSelfie()),
  });
  return model.id;
}

/** Polls status until the order is DONE or ERROR (calls mode finishes within a few polls). */
export async function pollUntilFinished(
  sim: RunningSimulator,
  orderId: number,
  maxPolls = 20,
): Promise<string> {
  for (let i = 0; i < maxPolls; i += 1) {
    const status = await callOk<{ status: string }>(sim, 'GET', `/order/${orderId}/status`);
    if (status.status === 'DONE' || status.status === 'ERROR') return status.status;
  }
  throw new Error(`order ${orderId} did not finish within ${maxPolls} polls`);
}

export async function trainedModel(sim: RunningSimulator, gender: 1 | 2 = 1): Promise<number> {
  const modelId = await createModelWithSelfie(sim, gender);
  await callOk(sim, 'GET', `/order/${modelId}/run`);
  const status = await pollUntilFinished(sim, modelId);
  if (status !== 'DONE') throw new Error(`model ${modelId} ended ${status}`);
  return modelId;
}

export async function finishedGeneration(
  sim: RunningSimulator,
  modelId: number,
  styles: number[],
): Promise<number> {
  const order = await callOk<{ id: number }>(sim, 'POST', '/order/create', {
    styles,
    gender: 1,
    parent: modelId,
  });
  await callOk(sim, 'GET', `/order/${order.id}/run`);
  await pollUntilFinished(sim, order.id);
  return order.id;
}

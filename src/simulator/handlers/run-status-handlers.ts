import { settleOrder } from '../order-lifecycle';
import { advanceOnStatusCall, planRun, progressPercent, statusMessage } from '../progression';
import { conflict } from '../simulator-refusal';
import type { ProviderHandler } from './handler-context';
import { ok } from './handler-context';
import { orderFromPath } from './order-lookup';

export const runOrder: ProviderHandler = (context) => {
  const order = orderFromPath(context);
  order.counters.runAttempts += 1;
  context.store.recordMutation();
  if (order.status !== 'CREATED') {
    throw conflict(`order ${order.id} has already been run (status ${order.status})`);
  }
  if (order.kind === 'model') {
    const images = context.store.trainingImagesOf(order.id).length;
    const needed = context.options.minTrainingImages;
    if (images < needed) {
      throw conflict(
        `model ${order.id} needs at least ${needed} training image(s) before it can run; it has ${images}`,
      );
    }
  }
  order.run = planRun(order, context.options, context.now);
  order.status = 'STARTED';
  order.counters.runs += 1;
  return ok(context.presenter.run(order));
};

export const getOrderStatus: ProviderHandler = (context) => {
  const order = orderFromPath(context);
  order.counters.statusCalls += 1;
  advanceOnStatusCall(order);
  context.store.recordMutation();
  settleOrder(context, order);
  return ok(
    context.presenter.status({
      order,
      progress: context.options.reportProgress ? progressPercent(order, context.now) : null,
      message: statusMessage(order),
    }),
  );
};

import type { OrderStore } from './order-store';
import type { ResolvedSimulatorOptions } from './options';
import { refreshStatus } from './progression';
import type { OrderRecord } from './state-schema';

export interface LifecycleContext {
  store: OrderStore;
  options: ResolvedSimulatorOptions;
  now: number;
}

/**
 * Brings an order's status up to date with the clock and, when a generation order has just
 * finished, gives it its avatars (cycling through its styles). Called before any answer that
 * shows or depends on an order's status.
 */
export function settleOrder(context: LifecycleContext, order: OrderRecord): OrderRecord {
  if (refreshStatus(order, context.now)) context.store.recordMutation();
  materializeAvatarsIfDone(context, order);
  return order;
}

function materializeAvatarsIfDone(context: LifecycleContext, order: OrderRecord): void {
  if (order.kind !== 'generation' || order.status !== 'DONE' || order.avatars.length > 0) return;
  const count = order.styles.length === 0 ? 0 : context.options.avatarsPerOrder;
  if (count === 0) return;
  const ids = context.store.allocateAvatarIds(count);
  order.avatars = ids.map((avatarId, index) => ({
    avatarId,
    index,
    styleId: order.styles[index % order.styles.length] ?? 0,
  }));
}

export function settleAll(context: LifecycleContext): OrderRecord[] {
  return context.store.allOrders().map((order) => settleOrder(context, order));
}

import { settleOrder } from '../order-lifecycle';
import { notFound } from '../simulator-refusal';
import type { OrderRecord } from '../state-schema';
import type { HandlerContext } from './handler-context';
import { integerParam } from './path-params';

/** The order named by a path parameter, with its status brought up to date; 404 when unknown. */
export function orderFromPath(context: HandlerContext, param = 'id'): OrderRecord {
  const id = integerParam(context.params, param);
  const order = context.store.getOrder(id);
  if (order === undefined) throw notFound(`order ${id} not found`);
  return settleOrder(context, order);
}

export function modelFromPath(context: HandlerContext, param = 'id'): OrderRecord {
  const id = integerParam(context.params, param);
  const order = context.store.getOrder(id);
  if (order === undefined || order.kind !== 'model') throw notFound(`model ${id} not found`);
  return settleOrder(context, order);
}

import { settleAll, settleOrder } from '../order-lifecycle';
import { conflict, notFound, unprocessable } from '../simulator-refusal';
import type { HandlerContext, ProviderHandler } from './handler-context';
import { ok } from './handler-context';
import { modelFromPath } from './order-lookup';
import { parseBody } from './parse-body';

function requireKnownStyles(context: HandlerContext, styles: readonly number[]): void {
  const known = new Set(context.options.styles.map((style) => style.id));
  const unknown = styles.filter((style) => !known.has(style));
  if (unknown.length > 0) {
    throw unprocessable(`styles: unknown style id${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  }
}

export const createModel: ProviderHandler = (context) => {
  const body = parseBody('createModel', context.body);
  requireKnownStyles(context, body.styles);
  const order = context.store.createOrder(
    { parent: 0, kind: 'model', gender: body.gender, styles: body.styles },
    context.now,
  );
  return ok(context.presenter.createdOrder(order));
};

export const createOrder: ProviderHandler = (context) => {
  const body = parseBody('createOrder', context.body);
  requireKnownStyles(context, body.styles);
  const parent = context.store.getOrder(body.parent);
  if (parent === undefined) throw notFound(`parent: model ${body.parent} not found`);
  if (parent.kind !== 'model')
    throw conflict(`parent: order ${parent.id} is a generation order, not a model`);
  settleOrder(context, parent);
  if (parent.status !== 'DONE') {
    throw conflict(
      `parent: model ${parent.id} is not trained (status ${parent.status}); wait until it is DONE`,
    );
  }
  if (parent.gender !== body.gender) {
    throw unprocessable(`gender: ${body.gender} differs from model ${parent.id}'s gender ${parent.gender}`);
  }
  const order = context.store.createOrder(
    { parent: parent.id, kind: 'generation', gender: body.gender, styles: body.styles },
    context.now,
  );
  return ok(context.presenter.createdOrder(order));
};

export const listOrders: ProviderHandler = (context) =>
  ok(context.presenter.orderList(settleAll(context), 'orders'));

export const listModels: ProviderHandler = (context) =>
  ok(
    context.presenter.orderList(
      settleAll(context).filter((order) => order.kind === 'model'),
      'models',
    ),
  );

export const listModelOrders: ProviderHandler = (context) => {
  const model = modelFromPath(context);
  const children = context.store.childrenOf(model.id).map((order) => settleOrder(context, order));
  return ok(context.presenter.orderList(children, 'orders'));
};

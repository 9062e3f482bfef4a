import { pageOf } from '../avatar-pages';
import { settleOrder } from '../order-lifecycle';
import type { AvatarView } from '../presenters/presenter';
import { conflict } from '../simulator-refusal';
import type { OrderRecord } from '../state-schema';
import type { HandlerContext, ProviderHandler } from './handler-context';
import { ok } from './handler-context';
import { orderFromPath } from './order-lookup';
import { pageParam } from './path-params';

function avatarsOf(order: OrderRecord): AvatarView[] {
  return order.avatars.map((avatar) => ({
    orderId: order.id,
    avatarId: avatar.avatarId,
    styleId: avatar.styleId,
  }));
}

/** A model's avatars are those of all its finished generation orders, oldest order first. */
function avatarsOfModel(context: HandlerContext, model: OrderRecord): AvatarView[] {
  return context.store
    .childrenOf(model.id)
    .map((order) => settleOrder(context, order))
    .filter((order) => order.status === 'DONE')
    .flatMap(avatarsOf);
}

export const listAvatarPage: ProviderHandler = (context) => {
  const order = orderFromPath(context);
  const page = pageParam(context.params, 'page');
  if (order.status !== 'DONE') {
    throw conflict(`order ${order.id} is not DONE (status ${order.status}); avatars are listed once it is`);
  }
  const avatars = order.kind === 'model' ? avatarsOfModel(context, order) : avatarsOf(order);
  return ok(context.presenter.avatarPage(pageOf(avatars, page, context.options)));
};

export const listStyles: ProviderHandler = (context) =>
  ok(context.presenter.styleList(context.options.styles));

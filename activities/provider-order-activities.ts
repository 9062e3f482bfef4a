import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { ProviderBadRequestError } from '@avatar-pipeline/client/provider/errors';
import type { Gender } from '@avatar-pipeline/client/provider/request-schemas';
import type { Order } from '@avatar-pipeline/client/provider/schemas';
import { hasStarted, type OrderStatus } from '@avatar-pipeline/client/provider/status';
import type { StatusReport } from '../src/contracts/provider-activity-results';
import { call } from './provider-call';
import type { RunWriteAttempt } from './provider-write-attempt';
import type { MeterOrder } from './order-meter';

export interface OrderActivityDependencies {
  provider: ProviderClient;
  writeAttempt: RunWriteAttempt;
  meterOrder: MeterOrder;
}

/**
 * The provider activities of orders, a model's training order and its generation orders: running
 * one, reading their statuses, creating a generation order. Part of createProviderActivities.
 */
export function createOrderActivities({ provider, writeAttempt, meterOrder }: OrderActivityDependencies) {
  return {
    async runOrder(input: { orderId: number }): Promise<StatusReport> {
      return writeAttempt(async ({ lookFirst, write }) => {
        if (lookFirst) {
          const current = await provider.getOrderStatus(input.orderId, call());
          if (hasStarted(current.status)) return report(current);
        }
        try {
          return report(await write(() => provider.runOrder(input.orderId, call())));
        } catch (err) {
          // A refused run of an order that is already running is the answer we lost, not a failure.
          if (!(err instanceof ProviderBadRequestError)) throw err;
          const current = await provider.getOrderStatus(input.orderId, call());
          if (hasStarted(current.status)) return report(current);
          throw err;
        }
      });
    },

    async getOrderStatus(input: { orderId: number }): Promise<StatusReport> {
      return report(await provider.getOrderStatus(input.orderId, call()));
    },

    /**
     * The status of every generation order under a model, in one request: how a pipeline polls
     * all its styles together instead of one status call per style.
     */
    async listModelOrderStatuses(input: {
      modelId: number;
    }): Promise<{ orders: { orderId: number; status: OrderStatus }[] }> {
      return {
        orders: (await provider.listModelOrders(input.modelId, call())).map((order) => ({
          orderId: order.id,
          status: order.status,
        })),
      };
    },

    /**
     * A generation order is found again by its parent, its style and its state: a create whose
     * answer was lost leaves an order that nothing has run yet (this run runs its order only once
     * the create answered). Orders of the style that were run are earlier runs' (a model is
     * generated for as often as wanted, by later runs too) and are never adopted.
     */
    async createGenerationOrder(input: {
      modelId: number;
      styleId: number;
      gender: Gender;
      /** Orders of this style the run made before (avatars that failed their checks): never adopted as this one. */
      knownOrderIds?: number[];
    }): Promise<{ orderId: number; reconciled: boolean }> {
      const created = await writeAttempt(async ({ lookFirst, write }) => {
        if (lookFirst) {
          const known = new Set(input.knownOrderIds ?? []);
          const existing = (await provider.listModelOrders(input.modelId, call())).find(
            (order) =>
              isOrderForStyle(order, input.modelId, input.styleId) &&
              !hasStarted(order.status) &&
              !known.has(order.id),
          );
          if (existing) return { orderId: existing.id, reconciled: true };
        }
        const order = await write(() =>
          provider.createOrder(
            { styles: [input.styleId], gender: input.gender, parent: input.modelId },
            call(),
          ),
        );
        return { orderId: order.id, reconciled: false };
      });
      // Made or adopted, the order is this run's: a run only adopts orders of its own model.
      await meterOrder(
        input.knownOrderIds?.length ? 'regeneration' : 'generation',
        `order:${created.orderId}`,
      );
      return created;
    },
  };
}

function report(status: { status: OrderStatus; progress?: number; message?: string }): StatusReport {
  return {
    status: status.status,
    ...(status.progress !== undefined ? { progress: status.progress } : {}),
    ...(status.message !== undefined ? { message: status.message } : {}),
  };
}

function isOrderForStyle(order: Order, modelId: number, styleId: number): boolean {
  const parentMatches = order.parent === undefined || order.parent === modelId;
  return parentMatches && order.styles?.length === 1 && order.styles[0] === styleId;
}

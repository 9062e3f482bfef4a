import type { OrderRecord } from './state-schema';
import type { OrderStats, SimulatorStats } from './stats-schema';

export function orderStats(order: OrderRecord): OrderStats {
  return {
    id: order.id,
    parent: order.parent,
    kind: order.kind,
    styles: [...order.styles],
    gender: order.gender,
    status: order.status,
    ...order.counters,
  };
}

/** Totals are derived from the orders, so they survive a restart from the state file with them. */
export function orderTotals(orders: readonly OrderRecord[]): SimulatorStats['totals'] {
  const sum = (pick: (order: OrderRecord) => number) =>
    orders.reduce((total, order) => total + pick(order), 0);
  return {
    modelsCreated: orders.filter((order) => order.kind === 'model').length,
    generationOrdersCreated: orders.filter((order) => order.kind === 'generation').length,
    uploads: sum((order) => order.counters.uploads),
    runs: sum((order) => order.counters.runs),
    runAttempts: sum((order) => order.counters.runAttempts),
    selects: sum((order) => order.counters.selects),
    statusCalls: sum((order) => order.counters.statusCalls),
  };
}

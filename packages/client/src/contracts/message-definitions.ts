import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';

/*
 * The queries, signals and updates runs answer, defined as @temporalio/workflow defines them (a
 * type and a name), so that contracts the client side shares load no workflow package: starters
 * and the client package depend on @temporalio/client and @temporalio/common only. Workflows pass
 * these to setHandler, which goes by the name.
 */

export function defineQuery<Ret, Args extends unknown[] = []>(name: string): QueryDefinition<Ret, Args> {
  return { type: 'query', name } as QueryDefinition<Ret, Args>;
}

export function defineSignal<Args extends unknown[] = []>(name: string): SignalDefinition<Args> {
  return { type: 'signal', name } as SignalDefinition<Args>;
}

export function defineUpdate<Ret, Args extends unknown[] = []>(name: string): UpdateDefinition<Ret, Args> {
  return { type: 'update', name } as UpdateDefinition<Ret, Args>;
}

import type { OrderStore } from '../order-store';
import type { ResolvedSimulatorOptions } from '../options';
import type { Presenter } from '../presenters/presenter';

/** Everything one provider request's handler may use; handlers are synchronous and never touch HTTP. */
export interface HandlerContext {
  store: OrderStore;
  options: ResolvedSimulatorOptions;
  /** The simulator clock's reading for this request. */
  now: number;
  presenter: Presenter;
  /** Raw path parameters by name, validated by the handler that reads them. */
  params: Readonly<Record<string, string>>;
  /** The parsed JSON body; undefined for requests without one. */
  body: unknown;
}

export interface HandlerResult {
  status: number;
  body: unknown;
}

export type ProviderHandler = (context: HandlerContext) => HandlerResult;

export const ok = (body: unknown): HandlerResult => ({ status: 200, body });

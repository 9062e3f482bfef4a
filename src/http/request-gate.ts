import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * At most `limit` requests hold a slot at once. A request's slot is given back when it has been
 * answered or its client went away (see `releaseOn`), or earlier by `release`.
 */
export class RequestGate {
  private held = 0;
  private readonly slots = new WeakMap<FastifyRequest, (() => void)[]>();

  constructor(private readonly limit: number) {}

  /** Gives slots back when their requests are answered or aborted, on every route of `app`. */
  releaseOn(app: FastifyInstance): void {
    app.addHook('onResponse', async (request) => this.release(request));
    app.addHook('onRequestAbort', async (request) => this.release(request));
  }

  /** Takes a slot for `request`; false when all are held. */
  tryTake(request: FastifyRequest): boolean {
    if (this.held >= this.limit) return false;
    this.held++;
    this.slots.set(request, []);
    return true;
  }

  /** Runs `then` when the request gives its slot back. */
  onRelease(request: FastifyRequest, then: () => void): void {
    this.slots.get(request)?.push(then);
  }

  release(request: FastifyRequest): void {
    const callbacks = this.slots.get(request);
    if (callbacks === undefined) return;
    this.slots.delete(request);
    this.held--;
    for (const callback of callbacks) callback();
  }
}

import { createServer } from 'node:net';
import {
  capConnections,
  HEADERS_DEADLINE_MS,
  serverOptions,
  type ServerLimits,
} from '../../../src/http/server-limits';

const limits: ServerLimits = {
  bodyBytes: 1024,
  requestTimeoutMs: 60_000,
  idleConnectionMs: 30_000,
  keepAliveMs: 5_000,
  maxConnections: 100,
  maxConnectionsPerClient: 10,
};

describe('server limits', () => {
  it('turn into Fastify options: body, deadlines, idle and keep-alive times, a sweep every second', () => {
    expect(serverOptions(limits)).toEqual({
      bodyLimit: 1024,
      requestTimeout: 60_000,
      connectionTimeout: 30_000,
      keepAliveTimeout: 5_000,
      http: { headersTimeout: HEADERS_DEADLINE_MS, connectionsCheckingInterval: 1_000 },
    });
  });

  it('never give the headers more time than the whole request', () => {
    const short = serverOptions({ ...limits, requestTimeoutMs: 500 });
    expect(short.http).toEqual({ headersTimeout: 500, connectionsCheckingInterval: 500 });
  });

  it('cap connections in all when a cap is given, and leave Node’s default otherwise', () => {
    const capped = createServer();
    capConnections(capped, limits);
    expect(capped.maxConnections).toBe(100);
    const uncapped = createServer();
    const before = uncapped.maxConnections;
    capConnections(uncapped, { ...limits, maxConnections: undefined });
    expect(uncapped.maxConnections).toBe(before);
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveAdminRequest } from './admin-request';
import { sendJson } from './http-responses';
import type { SimulatorOptions } from './options';
import { serveProviderRequest } from './provider-request';
import { SIM_PREFIX } from './resource-links';
import { SimulatorRuntime } from './simulator-runtime';
import type { SimulatorStats } from './stats-schema';

export interface StartSimulatorOptions extends SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Milliseconds since the epoch; tests pass a time-skipping environment's clock. Default Date.now. */
  clock?: () => number;
}

export interface RunningSimulator {
  /** Base URL for a provider client: origin plus base path, no trailing slash. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  stats(): SimulatorStats;
  /** Changes knobs live; throws an InputError (naming each option) and changes nothing when invalid. */
  setOptions(patch: SimulatorOptions): void;
  /** Forgets all orders, images and counters. */
  reset(): void;
  stop(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** A host usable in a URL: wildcard addresses become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Splits a request path into the simulator's own resources, provider endpoints, or neither. */
function classify(pathname: string, basePath: string) {
  const relative =
    basePath === ''
      ? pathname
      : pathname === basePath || pathname.startsWith(`${basePath}/`)
        ? pathname.slice(basePath.length)
        : null;
  // /__sim is reachable both below the base path and at the root, so tooling needs no configuration.
  for (const candidate of [relative, pathname]) {
    if (candidate !== null && (candidate === SIM_PREFIX || candidate.startsWith(`${SIM_PREFIX}/`))) {
      return { kind: 'admin' as const, path: candidate.slice(SIM_PREFIX.length) };
    }
  }
  return { kind: 'provider' as const, path: relative };
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const { port = 0, host = '127.0.0.1', clock = Date.now, ...simulatorOptions } = options;
  const runtime = new SimulatorRuntime(simulatorOptions, clock);
  const shutdown = new AbortController();
  let origin = '';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const pathname = new URL(req.url ?? '/', 'http://simulator').pathname;
    const target = classify(pathname, runtime.options.basePath);
    if (target.kind === 'admin') {
      await serveAdminRequest(runtime, req, res, target.path);
      return;
    }
    const requestOrigin = req.headers.host === undefined ? origin : `http://${req.headers.host}`;
    await serveProviderRequest(runtime, {
      req,
      res,
      path: target.path,
      origin: requestOrigin,
      shutdown: shutdown.signal,
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A simulator bug must be loud in tests, yet not take the process down.
      console.error('provider simulator: request failed', err);
      if (!res.headersSent) sendJson(res, 500, { status: 'error', message: 'simulator internal error' });
      else res.destroy();
    });
  });

  const address = await listen(server, port, host);
  origin = `http://${urlHost(host)}:${address.port}`;

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= new Promise<void>((resolve) => {
      shutdown.abort();
      server.close(() => resolve());
      server.closeAllConnections();
    }).finally(() => runtime.close());
    return stopping;
  };

  return {
    get url() {
      return `${origin}${runtime.options.basePath}`;
    },
    origin,
    port: address.port,
    stats: () => runtime.stats(),
    setOptions: (patch) => {
      runtime.setOptions(patch);
    },
    reset: () => runtime.reset(),
    stop,
  };
}

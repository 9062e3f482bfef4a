import type { Server } from 'node:net';
import { limitConnectionsPerClient } from './connection-limits';

/** What one HTTP server lets its clients hold: bodies, time and connections. */
export interface ServerLimits {
  /** The largest request body; a route may set a smaller one. */
  bodyBytes: number;
  /** A whole request (head and body) must have arrived within this, idle or not. */
  requestTimeoutMs: number;
  /** A connection with nothing sent or answered for this long is closed. */
  idleConnectionMs: number;
  /** Between requests on a kept-alive connection. */
  keepAliveMs: number;
  /** Connections open at once, from everyone; undefined for no cap beyond the per-client one. */
  maxConnections?: number;
  /** Connections one client (see clientKey) may hold open; more are closed as they arrive. */
  maxConnectionsPerClient: number;
}

/**
 * A request's line and headers must arrive within this (or the whole request's deadline when
 * shorter): a client that opens connections and sends half a request holds them no longer.
 */
export const HEADERS_DEADLINE_MS = 10_000;

/**
 * The starter API's fixed limits; its deadline and connection caps are settings (API_* variables).
 * A kept-alive connection outlives its clients' own idle timeouts (undici's is 4 s, browsers' about
 * a minute): the client closes first. With the server's 5 s, a poller whose event loop runs late
 * can send its next request on a connection the API is closing and get no answer ("other side
 * closed"): the likely cause of such failures seen in CI on GET /v1/pipelines/{id} (not proven).
 */
export const API_FIXED_LIMITS = {
  bodyBytes: 1024 * 1024,
  idleConnectionMs: 30_000,
  keepAliveMs: 65_000,
} as const satisfies Partial<ServerLimits>;

/** The codec server's limits and gates; it has no settings for them. */
export const CODEC_SERVER_LIMITS = {
  /** The UI posts a page's payloads at once; 2 MiB per payload is Temporal's own limit. */
  bodyBytes: 32 * 1024 * 1024,
  requestTimeoutMs: 60_000,
  idleConnectionMs: 30_000,
  keepAliveMs: 5_000,
  maxConnectionsPerClient: 32,
  /** A sign-in form holds one token. */
  loginBodyBytes: 4 * 1024,
  /** A sign-in body (a few hundred bytes) that has not arrived by then is cut off. */
  loginBodyDeadlineMs: 5_000,
  /**
   * Authenticated /encode and /decode requests handled at once; more are answered 503 before their
   * bodies are read. Only requests with a valid token count, so nobody without one can fill it.
   */
  concurrentRequests: 8,
  /** Sign-ins whose bodies are read at once (they come before any token, so they have their own gate). */
  concurrentLogins: 4,
  /** Wrong tokens (at /login or as a bearer token) one client address may send a minute; 429 past them. */
  failedTokensPerMinute: 10,
} as const satisfies ServerLimits & Record<string, number>;

/**
 * Fastify's server options for `limits`: body size, the whole request's deadline, the header
 * deadline above, idle and keep-alive times, and a sweep every second (Node checks both deadlines
 * only when it sweeps, every 30 s by default).
 */
export function serverOptions(limits: ServerLimits) {
  return {
    bodyLimit: limits.bodyBytes,
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleConnectionMs,
    keepAliveTimeout: limits.keepAliveMs,
    http: {
      headersTimeout: Math.min(HEADERS_DEADLINE_MS, limits.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1_000, limits.requestTimeoutMs),
    },
  };
}

/** Applies the connection caps of `limits` to a listening (or about to listen) server. */
export function capConnections(server: Server, limits: ServerLimits): void {
  if (limits.maxConnections !== undefined) server.maxConnections = limits.maxConnections;
  // So that one client cannot take every connection the cap above allows.
  limitConnectionsPerClient(server, limits.maxConnectionsPerClient);
}

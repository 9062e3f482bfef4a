import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error';

interface KnownPath {
  /** The route's URL as registered, e.g. `/v1/pipelines/:id`. */
  url: string;
  matches: RegExp;
  methods: Set<string>;
}

/**
 * Answers a request to a path the API serves, with a method it does not serve there, 405 with an
 * `Allow` header listing the methods it does (RFC 9110), instead of the 404 of a path it does not
 * serve. Call before any route is added: it learns the routes as they are added.
 */
export function answerUndeclaredMethods(app: FastifyInstance): void {
  const known = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    const entry = known.get(route.url) ?? { url: route.url, matches: pattern(route.url), methods: new Set() };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    known.set(route.url, entry);
  });
  // Before the body is read or the method's own rules apply (QUERY without a Content-Type, say).
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0] ?? '';
    const allowed = new Set<string>();
    for (const entry of known.values()) {
      if (entry.matches.test(path)) for (const method of entry.methods) allowed.add(method);
    }
    if (allowed.size === 0) return;
    const allow = [...allowed].sort().join(', ');
    reply.header('allow', allow);
    throw new ApiError(405, `${request.method} is not allowed on ${path}; it allows ${allow}`);
  });
}

/** A route URL as a regular expression on request paths: `:name` is one segment, `*` the rest. */
function pattern(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

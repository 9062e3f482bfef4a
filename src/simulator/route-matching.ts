export interface RouteShape {
  method: string;
  /** A path whose `{name}` segments are parameters, as in the provider's endpoint table. */
  template: string;
}

export type RouteMatch<R extends RouteShape> =
  | { kind: 'matched'; route: R; params: Record<string, string> }
  /** The path exists but not for this method: 405 with Allow. */
  | { kind: 'wrong-method'; route: R; allowed: string[] }
  | { kind: 'unknown' };

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed escapes are left for the parameter check to refuse
  }
}

function matchTemplate(template: string, segments: readonly string[]): Record<string, string> | null {
  const parts = splitPath(template);
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] ?? '';
    const param = /^\{(\w+)\}$/.exec(part)?.[1];
    if (param !== undefined) params[param] = decodeSegment(segment);
    else if (part !== segment) return null;
  }
  return params;
}

/** Finds the route for a method and a path (already stripped of the base path; a trailing slash is tolerated). */
export function matchRoute<R extends RouteShape>(
  routes: readonly R[],
  method: string,
  path: string,
): RouteMatch<R> {
  const segments = splitPath(path);
  const candidates = routes.flatMap((route) => {
    const params = matchTemplate(route.template, segments);
    return params === null ? [] : [{ route, params }];
  });
  const exact = candidates.find((candidate) => candidate.route.method === method);
  if (exact !== undefined) return { kind: 'matched', ...exact };
  const first = candidates[0];
  if (first !== undefined) {
    return { kind: 'wrong-method', route: first.route, allowed: candidates.map((c) => c.route.method) };
  }
  return { kind: 'unknown' };
}

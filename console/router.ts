import { useEffect, useState } from 'preact/hooks';

/** A place in the console: `#/runs/abc?state=running` is `{ path: ['runs', 'abc'], query }`. */
export interface Route {
  path: string[];
  query: URLSearchParams;
}

/** Hash routes keep every page one file (index.html) and shareable links working. */
export function routeOf(hash: string): Route {
  const [pathPart = '', queryPart = ''] = hash.replace(/^#\/?/, '').split('?');
  return {
    path: pathPart.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(queryPart),
  };
}

export function href(path: string[], query?: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value) search.set(key, value);
  const text = search.toString();
  return `#/${path.map(encodeURIComponent).join('/')}${text ? `?${text}` : ''}`;
}

export function navigate(path: string[], query?: Record<string, string | undefined>): void {
  location.hash = href(path, query);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const changed = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

import { href, routeOf } from './router';
import { saveRunLink } from './session';

/**
 * Shared run links: `/console/#/runs/<workflowId>?access_token=<token>`. The token rides in the
 * fragment, which browsers never send to a server (no access log, no Referer holds it).
 */
const PARAMETER = 'access_token';

/** The link that opens `workflowId` read-only with a browser access token. */
export function runLinkUrl(workflowId: string, token: string): string {
  return `${location.origin}${location.pathname}${href(['runs', workflowId], { [PARAMETER]: token })}`;
}

/**
 * Keeps the access token of a shared run link for the tab and takes it out of the address bar
 * (replaceState: no new history entry), so the address copied from it holds no token.
 */
export function takeRunLinkFromUrl(): void {
  const route = routeOf(location.hash);
  const token = route.query.get(PARAMETER);
  if (token === null) return;
  const [section, workflowId] = route.path;
  if (section === 'runs' && workflowId && token) saveRunLink({ workflowId, token });
  route.query.delete(PARAMETER);
  history.replaceState(
    history.state,
    '',
    `${location.pathname}${location.search}${href(route.path, Object.fromEntries(route.query))}`,
  );
}

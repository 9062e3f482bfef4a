import { href, routeOf } from './router';
import { saveSharedLink, type SharedSection } from './session';

/**
 * Shared links: `/console/#/runs/<workflowId>?access_token=<token>` for a run,
 * `/console/#/campaigns/<campaignId>?access_token=<token>` for a campaign. The token rides in the
 * fragment, which browsers never send to a server (no access log, no Referer holds it).
 */
const PARAMETER = 'access_token';
const SECTIONS: readonly SharedSection[] = ['runs', 'campaigns'];

/** The link that opens one run or campaign read-only with a browser access token. */
export function sharedLinkUrl(section: SharedSection, id: string, token: string): string {
  return `${location.origin}${location.pathname}${href([section, id], { [PARAMETER]: token })}`;
}

/**
 * Keeps the access token of a shared link for the tab and takes it out of the address bar
 * (replaceState: no new history entry), so the address copied from it holds no token.
 */
export function takeSharedLinkFromUrl(): void {
  const route = routeOf(location.hash);
  const token = route.query.get(PARAMETER);
  if (token === null) return;
  const [section, id] = route.path;
  const shared = SECTIONS.find((s) => s === section);
  if (shared && id && token) saveSharedLink({ section: shared, id, token });
  route.query.delete(PARAMETER);
  history.replaceState(
    history.state,
    '',
    `${location.pathname}${location.search}${href(route.path, Object.fromEntries(route.query))}`,
  );
}

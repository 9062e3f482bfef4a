import { href, routeOf } from './router';
import { saveSharedLink, type LinkSection, type SharedSection } from './session';

/**
 * Shared links: `/console/#/runs/<workflowId>?access_token=<token>` for a run,
 * `/console/#/campaigns/<campaignId>?access_token=<token>` for a campaign, and review links (the
 * API makes them) `/console/#/review/<workflowId>?access_token=<token>`. The token rides in the
 * fragment, which browsers never send to a server (no access log, no Referer holds it).
 */
const PARAMETER = 'access_token';
const SECTIONS: readonly LinkSection[] = ['runs', 'campaigns', 'review'];

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

/**
 * When a link's token stops working, as the token itself says (its payload is encoded, not
 * encrypted; the API alone decides whether it is valid): for telling a reader their link expired.
 */
export function linkExpiry(token: string): Date | undefined {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const { e } = JSON.parse(json) as { e?: unknown };
    return typeof e === 'number' ? new Date(e * 1000) : undefined;
  } catch {
    return undefined;
  }
}

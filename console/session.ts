/** The bearer token lives in this tab's session storage only: closing the tab signs out. */
const TOKEN_KEY = 'avatar-console.token';
/** A shared link's browser access token, kept like the API token (this tab only). */
const SHARED_LINK_KEY = 'avatar-console.shared-link';

/** What a shared link opens: one run or one campaign. */
export type SharedSection = 'runs' | 'campaigns';

/** What a link opens: a shared run or campaign (read-only), or a run's review page (a review link). */
export type LinkSection = SharedSection | 'review';
const LINK_SECTIONS: readonly string[] = ['runs', 'campaigns', 'review'] satisfies LinkSection[];

/** A link's browser access token: read-only for one run or campaign, or a review link's for one run. */
export interface SharedLink {
  section: LinkSection;
  id: string;
  token: string;
}

export function savedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

export function savedSharedLink(): SharedLink | undefined {
  try {
    const link = JSON.parse(sessionStorage.getItem(SHARED_LINK_KEY) ?? 'null') as Partial<SharedLink> | null;
    return link?.section !== undefined &&
      LINK_SECTIONS.includes(link.section) &&
      typeof link.id === 'string' &&
      typeof link.token === 'string'
      ? { section: link.section, id: link.id, token: link.token }
      : undefined;
  } catch {
    return undefined;
  }
}

export function saveSharedLink(link: SharedLink): void {
  sessionStorage.setItem(SHARED_LINK_KEY, JSON.stringify(link));
}

export function forgetSharedLink(): void {
  sessionStorage.removeItem(SHARED_LINK_KEY);
}

/** What the console's calls carry: a shared link's token while the tab follows one, else the API token. */
export function activeToken(): string | undefined {
  return savedSharedLink()?.token ?? savedToken();
}

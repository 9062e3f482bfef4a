/** The bearer token lives in this tab's session storage only: closing the tab signs out. */
const TOKEN_KEY = 'avatar-console.token';
/** A shared run link's browser access token, kept like the API token (this tab only). */
const RUN_LINK_KEY = 'avatar-console.run-link';

/** A shared run link: a read-only browser access token for one run. */
export interface RunLink {
  workflowId: string;
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

export function savedRunLink(): RunLink | undefined {
  try {
    const link = JSON.parse(sessionStorage.getItem(RUN_LINK_KEY) ?? 'null') as Partial<RunLink> | null;
    return typeof link?.workflowId === 'string' && typeof link.token === 'string'
      ? { workflowId: link.workflowId, token: link.token }
      : undefined;
  } catch {
    return undefined;
  }
}

export function saveRunLink(link: RunLink): void {
  sessionStorage.setItem(RUN_LINK_KEY, JSON.stringify(link));
}

export function forgetRunLink(): void {
  sessionStorage.removeItem(RUN_LINK_KEY);
}

/** What the console's calls carry: a shared run link's token while the tab follows one, else the API token. */
export function activeToken(): string | undefined {
  return savedRunLink()?.token ?? savedToken();
}

/** The bearer token lives in this tab's session storage only: closing the tab signs out. */
const TOKEN_KEY = 'avatar-console.token';
const CAMPAIGNS_KEY = 'avatar-console.campaigns';

export function savedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** Campaigns started from this tab, newest first: the API has no listing of campaigns. */
export function rememberedCampaigns(): string[] {
  try {
    const list: unknown = JSON.parse(sessionStorage.getItem(CAMPAIGNS_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberCampaign(id: string): void {
  const list = [id, ...rememberedCampaigns().filter((known) => known !== id)].slice(0, 50);
  sessionStorage.setItem(CAMPAIGNS_KEY, JSON.stringify(list));
}

/** The bearer token lives in this tab's session storage only: closing the tab signs out. */
const TOKEN_KEY = 'avatar-console.token';

export function savedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

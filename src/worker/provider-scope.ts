/** A stable, readable name for one provider account's id space: host and path of its base URL. */
export function providerScope(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

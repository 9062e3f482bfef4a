/** The Temporal Web UI page of one workflow run. */
export function workflowUiUrl(uiUrl: string, namespace: string, workflowId: string): string {
  return `${uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/**
 * Where the Web UI of the server at `address` most likely is: `temporal server start-dev` puts
 * it on the frontend port + 1000 unless told otherwise.
 */
export function guessUiUrl(address: string): string {
  const match = /^(.+):(\d+)$/.exec(address);
  const host = match?.[1] ?? '127.0.0.1';
  const port = Number(match?.[2] ?? 7233) + 1000;
  return `http://${host === 'localhost' ? '127.0.0.1' : host}:${port}`;
}

/** Whether something answers HTTP at `url` (within a second). */
export async function answersHttp(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.body?.cancel();
    return response.status < 500;
  } catch {
    return false;
  }
}

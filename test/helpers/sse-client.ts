/** A Server-Sent Events reader for tests: parses the stream of one fetch into events. */
export interface ReceivedEvent {
  id?: string;
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface EventStreamReader {
  status: number;
  /** The next event, or undefined once the server ended the stream. */
  next(timeoutMs?: number): Promise<ReceivedEvent | undefined>;
  close(): void;
}

export async function openEventStream(
  url: string,
  headers: Record<string, string>,
): Promise<EventStreamReader> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const read = async (): Promise<ReceivedEvent | undefined> => {
    for (;;) {
      const boundary = buffer.indexOf('\n\n');
      if (boundary >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const event = parse(block);
        if (event) return event;
        continue;
      }
      const chunk = await reader?.read();
      if (!chunk || chunk.done) return undefined;
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    status: response.status,
    next: (timeoutMs = 20_000) =>
      Promise.race([
        read(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs).unref(),
        ),
      ]),
    close: () => abort.abort(),
  };
}

/** One block of `field: value` lines; comments and retry-only blocks are not events. */
function parse(block: string): ReceivedEvent | undefined {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { ...(id !== undefined ? { id } : {}), event, data: JSON.parse(data.join('\n')) };
}

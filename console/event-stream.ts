import { authHeaders } from './api';

export interface StreamEvent {
  event: string;
  id?: string;
  data: string;
}

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'refused';

/**
 * Follows one of the API's Server-Sent Event streams over fetch (EventSource cannot send the
 * bearer token), resuming after a dropped connection with Last-Event-ID so no event is lost or
 * repeated. Ends after the event with id `end`, or when the API answers 204 (already ended).
 * Returns a function that stops following.
 */
export function followStream(
  path: string,
  onEvent: (event: StreamEvent) => void,
  onState: (state: StreamState, detail?: string) => void = () => undefined,
  /** Resume after this event id: `0` asks for every snapshot the stream still keeps. */
  fromId?: string,
): () => void {
  const abort = new AbortController();
  let lastId: string | undefined = fromId;
  let delayMs = 500;

  const run = async (): Promise<void> => {
    for (;;) {
      onState(lastId === undefined ? 'connecting' : 'reconnecting');
      try {
        const response = await fetch(path, {
          headers: {
            accept: 'text/event-stream',
            ...authHeaders(),
            ...(lastId !== undefined ? { 'last-event-id': lastId } : {}),
          },
          signal: abort.signal,
        });
        if (response.status === 204) return onState('ended');
        if (!response.ok || !response.body) {
          // 429: too many streams open at once; worth trying again later. Others will not change.
          if (response.status !== 429 && response.status < 500) {
            return onState('refused', `The API answered ${response.status}`);
          }
        } else {
          onState('live');
          delayMs = 500;
          for await (const event of eventsOf(response.body)) {
            if (event.id !== undefined) lastId = event.id;
            onEvent(event);
            if (event.id === 'end') return onState('ended');
          }
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        void err;
      }
      if (abort.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 10_000);
    }
  };
  void run();
  return () => abort.abort();
}

/** The events of a text/event-stream body, as the HTML standard parses them. */
async function* eventsOf(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let id: string | undefined;
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0)
          yield { event: event || 'message', data: data.join('\n'), ...(id ? { id } : {}) };
        event = '';
        id = undefined;
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = text;
      else if (field === 'data') data.push(text);
      else if (field === 'id') id = text;
    }
  }
}

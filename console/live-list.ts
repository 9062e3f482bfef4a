import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from './api';
import { followStream } from './event-stream';

/**
 * A list of the API (GET /v1/pipelines, GET /v1/campaigns) kept live: its event stream sends the
 * list's first page at once and again at every change, and a reconnect gets the current one. A
 * stream the API refuses (a bad filter, a lost token) is asked once as JSON, for the API's message.
 */
export function useLiveList<T>(path: string): { page: T | undefined; error: string } {
  const [page, setPage] = useState<T | undefined>();
  const [error, setError] = useState('');
  useEffect(() => {
    setPage(undefined);
    setError('');
    return followStream(
      path,
      (event) => {
        if (event.event !== 'list') return;
        setPage(JSON.parse(event.data) as T);
        setError('');
      },
      (state) => {
        if (state === 'refused')
          callApi<T>('GET', path).then(setPage, (err: unknown) => setError(messageOf(err)));
      },
    );
  }, [path]);
  return { page, error };
}

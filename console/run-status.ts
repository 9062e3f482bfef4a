import { useEffect, useRef, useState } from 'preact/hooks';
import { callApi, messageOf } from './api';
import type { PipelineProgress, PipelineStatus } from './api-types';
import { followStream, type StreamState } from './event-stream';

/** A run that has not ended: running, or held at its review gate. */
export function isOpen(state: PipelineStatus['state']): boolean {
  return state === 'running' || state === 'awaiting-review';
}

export interface RunStatus {
  status: PipelineStatus | undefined;
  progress: PipelineProgress | undefined;
  stream: StreamState;
  error: string;
  /** Reads the status again (after an action); only the newest answer is shown. */
  reload: () => Promise<void>;
  /** Shows progress an action's answer already holds, before the stream brings it. */
  setProgress: (progress: PipelineProgress) => void;
}

/**
 * One run's status, and its progress live from the event stream. Loads overlap (the page's first
 * one, the stream's end, an action's): only the newest answer is shown, so a slow answer read while
 * the run was running never hides its end.
 */
export function useRunStatus(workflowId: string): RunStatus {
  const [status, setStatus] = useState<PipelineStatus | undefined>();
  const [progress, setProgress] = useState<PipelineProgress | undefined>();
  const [stream, setStream] = useState<StreamState>('connecting');
  const [error, setError] = useState('');
  const loads = useRef(0);
  const path = `/v1/pipelines/${encodeURIComponent(workflowId)}`;

  const reload = async () => {
    const mine = ++loads.current;
    try {
      const answer = await callApi<PipelineStatus>('GET', path);
      if (mine !== loads.current) return;
      setStatus(answer);
      if (answer.progress) setProgress(answer.progress);
      setError('');
    } catch (err) {
      if (mine === loads.current) setError(messageOf(err));
    }
  };

  useEffect(() => {
    setStatus(undefined);
    setProgress(undefined);
    void reload();
    return followStream(
      `${path}/events`,
      (event) => {
        if (event.event === 'progress') {
          const data = JSON.parse(event.data) as { progress: PipelineProgress };
          setProgress(data.progress);
        }
      },
      (state, detail) => {
        setStream(state);
        // The stream ends after the run's result or error event, or at once (204) when the run
        // ended before it connected: either way the status now carries the final state and the
        // archived avatars' links.
        if (state === 'ended' || (state === 'refused' && detail)) void reload();
      },
    );
  }, [workflowId]);

  return { status, progress, stream, error, reload, setProgress };
}

import { useEffect, useState } from 'preact/hooks';
import { callApi, messageOf } from './api';
import type { CampaignProgress, CampaignStatus } from './api-types';
import { followStream, type StreamState } from './event-stream';
import { sampleOf, type ThroughputSample } from './parts/throughput-chart';

export interface CampaignLive {
  status: CampaignStatus | undefined;
  progress: CampaignProgress | undefined;
  /** The throughput chart's samples: every snapshot the campaign kept, then each one as it comes. */
  samples: ThroughputSample[];
  stream: StreamState;
  error: string;
  /** Reads the status again (after an action). */
  reload: () => Promise<void>;
  /** Follows the stream again: a retry restarts an ended campaign under its id. */
  followAgain: () => void;
}

/** One campaign's status, and its progress and throughput live from its event stream. */
export function useCampaignLive(campaignId: string): CampaignLive {
  const base = `/v1/campaigns/${encodeURIComponent(campaignId)}`;
  const [status, setStatus] = useState<CampaignStatus | undefined>();
  const [progress, setProgress] = useState<CampaignProgress | undefined>();
  const [samples, setSamples] = useState<ThroughputSample[]>([]);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [error, setError] = useState('');
  const [following, setFollowing] = useState(0);

  const reload = async () => {
    try {
      const answer = await callApi<CampaignStatus>('GET', base);
      setStatus(answer);
      if (answer.progress) setProgress(answer.progress);
      setError('');
    } catch (err) {
      setError(messageOf(err));
    }
  };

  useEffect(() => {
    void reload();
    return followStream(
      `${base}/events`,
      (event) => {
        if (event.event === 'progress') {
          const data = JSON.parse(event.data) as { progress: CampaignProgress };
          setProgress(data.progress);
          setSamples((old) => [
            ...old.filter((s) => s.elapsedMs !== data.progress.elapsedMs),
            sampleOf(data.progress),
          ]);
        } else if (event.event === 'result' || event.event === 'error') void reload();
      },
      setStream,
      // Every snapshot the campaign still keeps, so the chart starts with its history.
      '0',
    );
  }, [campaignId, following]);
  useEffect(() => setSamples([]), [campaignId]);

  return { status, progress, samples, stream, error, reload, followAgain: () => setFollowing((n) => n + 1) };
}

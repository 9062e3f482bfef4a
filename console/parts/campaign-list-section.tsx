import { useState } from 'preact/hooks';
import { callApi, messageOf } from '../api';
import type { CampaignList } from '../api-types';
import { useLiveList } from '../live-list';
import { href } from '../router';
import { Alert } from './alert';

/** The caller's campaigns, newest first (GET /v1/campaigns): the first page live, later ones on demand. */
export function CampaignListSection() {
  // The first page is live (its event stream); pages after it are read once, on demand.
  const live = useLiveList<CampaignList>('/v1/campaigns?limit=20');
  const [more, setMore] = useState<CampaignList | undefined>();
  const [moreError, setMoreError] = useState('');
  const firstIds = new Set(live.page?.campaigns.map((c) => c.campaignId));
  const listed = live.page && [
    ...live.page.campaigns,
    ...(more?.campaigns ?? []).filter((c) => !firstIds.has(c.campaignId)),
  ];
  const nextCursor = more ? more.nextCursor : live.page?.nextCursor;
  const listError = live.error || moreError;

  const loadMore = async (cursor: string) => {
    try {
      const search = new URLSearchParams({ limit: '20', cursor });
      const page = await callApi<CampaignList>('GET', `/v1/campaigns?${search.toString()}`);
      setMore((old) => ({ ...page, campaigns: [...(old?.campaigns ?? []), ...page.campaigns] }));
      setMoreError('');
    } catch (err) {
      setMoreError(messageOf(err));
    }
  };

  return (
    <section aria-labelledby="list-heading">
      <h2 id="list-heading">Your campaigns</h2>
      <Alert>{listError && `The campaigns could not be listed: ${listError}`}</Alert>
      {listed === undefined && !listError && <p role="status">Loading campaigns…</p>}
      {listed?.length === 0 && <p role="status">No campaigns yet.</p>}
      {listed && listed.length > 0 && (
        <table class="cards">
          <caption>Campaigns, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Campaign</th>
              <th scope="col">State</th>
              <th scope="col">Subjects</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {listed.map((campaign) => (
              <tr key={campaign.campaignId}>
                <td data-label="Campaign" class="id">
                  <a href={href(['campaigns', campaign.campaignId])}>{campaign.campaignId}</a>
                </td>
                <td data-label="State">
                  <span class={`state ${campaign.state}`}>{campaign.state}</span>
                </td>
                <td data-label="Subjects">{campaign.total ?? '—'}</td>
                <td data-label="Started">
                  <time dateTime={campaign.startedAt}>{new Date(campaign.startedAt).toLocaleString()}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {nextCursor && (
        <button type="button" class="quiet" onClick={() => void loadMore(nextCursor)}>
          More campaigns
        </button>
      )}
    </section>
  );
}

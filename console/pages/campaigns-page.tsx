import { useState } from 'preact/hooks';
import { CampaignListSection } from '../parts/campaign-list-section';
import { PageHeading } from '../parts/page-heading';
import { StartCampaignForm } from '../parts/start-campaign-form';
import { navigate } from '../router';

/** Starts a campaign from a manifest file; lists the caller's campaigns (GET /v1/campaigns). */
export function CampaignsPage() {
  const [openId, setOpenId] = useState('');
  return (
    <>
      <PageHeading title="Campaigns">Campaigns</PageHeading>
      <StartCampaignForm />
      <section aria-labelledby="open-heading">
        <h2 id="open-heading">Open a campaign</h2>
        <form
          class="filters"
          onSubmit={(e) => {
            e.preventDefault();
            if (openId.trim()) navigate(['campaigns', openId.trim()]);
          }}
        >
          <div>
            <label for="open-campaign">Campaign id</label>
            <input id="open-campaign" value={openId} onInput={(e) => setOpenId(e.currentTarget.value)} />
          </div>
          <button type="submit">Open</button>
        </form>
      </section>
      <CampaignListSection />
    </>
  );
}

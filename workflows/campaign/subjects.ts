import { proxyActivities } from '@temporalio/workflow';
import type { CampaignActivities } from '../../activities/campaign-activities';
import {
  ERASED_SUBJECT,
  isErased,
  type ManifestEntry,
  type ManifestRef,
} from '@avatar-pipeline/client/contracts/campaign/campaign-state';

const { readCampaignSubjects } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '1 minute',
  // A worker that cannot read the manifest from the blob store retries; after this the campaign fails with its message.
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

/**
 * The campaign's subjects, a page at a time from the stored manifest: history holds the pages
 * read by this run, never the whole manifest, and retries of far-away subjects read their page.
 */
export class SubjectPages {
  private from = -1;
  private page: ManifestEntry[] = [];

  constructor(
    private readonly manifest: ManifestRef,
    private readonly pageSize: number,
  ) {}

  /** The subject id when its page is loaded (for messages); undefined otherwise. */
  peekId(index: number): string | undefined {
    const entry = this.page[index - this.from];
    return entry && !isErased(entry) ? entry.subjectId : undefined;
  }

  /** The person at `index` was erased: the page held in memory forgets them too. */
  erase(index: number): void {
    if (index >= this.from && index < this.from + this.page.length)
      this.page[index - this.from] = ERASED_SUBJECT;
  }

  /** The subject at `index`, or ERASED_SUBJECT when the person was erased (packages/client/src/erasure/forget-subject.ts). */
  async get(index: number): Promise<ManifestEntry> {
    if (index < this.from || index >= this.from + this.page.length) {
      const from = Math.floor(index / this.pageSize) * this.pageSize;
      this.page = await readCampaignSubjects.executeWithOptions(
        { summary: `read subjects ${from + 1}-${Math.min(from + this.pageSize, this.manifest.total)}` },
        [{ manifest: this.manifest, from, count: this.pageSize }],
      );
      this.from = from;
    }
    const subject = this.page[index - this.from];
    if (!subject) throw new Error(`subject #${index} is missing from the campaign manifest`);
    return subject;
  }
}

import type { CampaignResultRow } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { csvLine } from './manifest/csv';

export const RESULT_COLUMNS = [
  'subjectId',
  'modelId',
  'styleId',
  'avatarId',
  'imageUrl',
  'archiveKey',
] as const;

/**
 * A campaign's result rows (CampaignHandle.resultRows) as CSV with a header line, or as JSONL,
 * chunk by chunk: what `campaigns results` and GET /v1/campaigns/{id}/results.{csv,jsonl} send.
 */
export async function* exportResults(
  rows: AsyncIterable<CampaignResultRow>,
  format: 'csv' | 'jsonl',
): AsyncGenerator<string> {
  if (format === 'csv') yield csvLine([...RESULT_COLUMNS]);
  for await (const row of rows) {
    yield format === 'csv'
      ? csvLine([row.subjectId, row.modelId, row.styleId, row.avatarId, row.imageUrl, row.archiveKey ?? ''])
      : `${JSON.stringify(row)}\n`;
  }
}

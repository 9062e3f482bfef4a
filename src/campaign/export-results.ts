import type { CampaignResultRow } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { csvLine } from './manifest/csv';

const RESULT_COLUMNS = [
  'subjectId',
  'modelId',
  'styleId',
  'avatarId',
  'imageUrl',
  'archiveKey',
  'check',
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
      ? csvLine([
          row.subjectId,
          row.modelId,
          row.styleId,
          row.avatarId,
          row.imageUrl,
          row.archiveKey ?? '',
          checkCell(row),
        ])
      : `${JSON.stringify(row)}\n`;
  }
}

/** The avatar checks' verdict in one cell: empty when unchecked, `passed`, or `failed: <reasons>`. */
function checkCell(row: CampaignResultRow): string {
  if (row.check === undefined) return '';
  return row.check.passed ? 'passed' : `failed: ${row.check.reasons.join('; ')}`;
}

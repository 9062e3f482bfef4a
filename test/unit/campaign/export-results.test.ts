import type { CampaignResultRow } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import { exportResults } from '../../../src/campaign/export-results';

async function* rowsOf(rows: CampaignResultRow[]): AsyncGenerator<CampaignResultRow> {
  yield* rows;
}

async function exported(rows: CampaignResultRow[], format: 'csv' | 'jsonl'): Promise<string> {
  let text = '';
  for await (const chunk of exportResults(rowsOf(rows), format)) text += chunk;
  return text;
}

const ROW = { subjectId: 's-1', modelId: 7, styleId: 3, imageUrl: 'https://cdn.example/1.png' };

describe('campaign results', () => {
  const rows: CampaignResultRow[] = [
    {
      ...ROW,
      avatarId: 1,
      archiveKey: 'subjects/ab/avatars/7/9/1.png',
      check: { passed: true, reasons: [] },
    },
    {
      ...ROW,
      avatarId: 2,
      check: {
        passed: false,
        reasons: ['shows no face', 'is flagged as unsafe (Porn 0.97; flagged from 0.6)'],
      },
    },
    { ...ROW, avatarId: 3 },
  ];

  it('say of each avatar whether it passed its checks, and why not, in the CSV', async () => {
    expect((await exported(rows, 'csv')).split('\n')).toEqual([
      'subjectId,modelId,styleId,avatarId,imageUrl,archiveKey,check',
      's-1,7,3,1,https://cdn.example/1.png,subjects/ab/avatars/7/9/1.png,passed',
      's-1,7,3,2,https://cdn.example/1.png,,failed: shows no face; is flagged as unsafe (Porn 0.97; flagged from 0.6)',
      's-1,7,3,3,https://cdn.example/1.png,,',
      '',
    ]);
  });

  it('carry the whole check in JSONL', async () => {
    const lines = (await exported(rows, 'jsonl'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as CampaignResultRow);
    expect(lines.map((l) => l.check)).toEqual([rows[0]!.check, rows[1]!.check, undefined]);
  });
});

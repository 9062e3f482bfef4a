import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { campaignSection, recordCampaignSection } from '../../../bench/campaign-results';
import { replaceSection } from '../../../bench/results-file';

const BEGIN = '<!-- report: begin (written by npm run bench) -->';
const END = '<!-- report: end -->';

/** bench/RESULTS.md holds hand-written sections beside the ones benchmarks write: a write keeps them. */
describe('benchmark sections of the results file', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'results-')), 'RESULTS.md');
  const byHand = '## Written by hand\n\nA figure with $& and $1 in it.\n';

  beforeEach(() => {
    writeFileSync(file, `# Benchmark results\n\n${BEGIN}\nold table\n${END}\n\n${byHand}`);
  });

  test('the report replaces its own section only', () => {
    replaceSection(BEGIN, END, `${BEGIN}\nnew table\n${END}`, file);
    expect(readFileSync(file, 'utf8')).toBe(
      `# Benchmark results\n\n${BEGIN}\nnew table\n${END}\n\n${byHand}`,
    );
  });

  test('the campaign section is added after the rest, then replaced in place, and the report keeps it', () => {
    recordCampaignSection(['first run'], ['node', 'campaign.js'], false, file);
    const first = campaignSection(file);
    expect(first).toContain('first run');
    expect(
      readFileSync(file, 'utf8').startsWith(
        `# Benchmark results\n\n${BEGIN}\nold table\n${END}\n\n${byHand}`,
      ),
    ).toBe(true);

    recordCampaignSection(['second run'], ['node', 'campaign.js'], false, file);
    replaceSection(BEGIN, END, `${BEGIN}\nnew table\n${END}`, file);
    const text = readFileSync(file, 'utf8');
    expect(campaignSection(file)).toContain('second run');
    expect(text).not.toContain('first run');
    expect(text).toContain(byHand);
    expect(text).toContain(`${BEGIN}\nnew table\n${END}`);
  });
});

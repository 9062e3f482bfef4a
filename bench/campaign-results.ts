/** The campaign benchmark's section of bench/RESULTS.md, written by `npm run bench:campaign -- --write`. */
import os from 'node:os';
import { replaceSection, RESULTS_FILE, sectionBetween } from './results-file';

const BEGIN = '<!-- campaign benchmark: begin (written by npm run bench:campaign -- --write) -->';
const END = '<!-- campaign benchmark: end -->';

/** The campaign section of bench/RESULTS.md as it stands (with its markers), or '' when there is none. */
export function campaignSection(file = RESULTS_FILE): string {
  return sectionBetween(BEGIN, END, file);
}

/** Replaces (or appends) the campaign section with this run's output. */
export function recordCampaignSection(
  lines: string[],
  command: string[],
  append = false,
  file = RESULTS_FILE,
): string {
  const cpus = os.cpus();
  const current = campaignSection(file);
  const kept = append && current ? current.slice(0, current.length - END.length).trimEnd() : undefined;
  const section = [
    ...(kept !== undefined
      ? [kept, '', '---', '']
      : [BEGIN, '', "## Campaigns at the provider's ratios", '']),
    `Written by \`${command.join(' ')}\` (\`npm run bench:campaign\`); every figure from here to the next such line comes from that one run.`,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB RAM; shared with other work (the load averages below say how busy)`,
    '',
    ...lines,
    '',
    END,
  ].join('\n');
  replaceSection(BEGIN, END, section, file);
  return file;
}

/**
 * bench/RESULTS.md keeps what a benchmark writes in a section of its own, between two markers:
 * `npm run bench:campaign -- --write` replaces the campaign section and `npm run bench`
 * (bench/report.ts) the report's; everything outside a benchmark's markers is left as it is.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BEGIN = '<!-- campaign benchmark: begin (written by npm run bench:campaign -- --write) -->';
const END = '<!-- campaign benchmark: end -->';

export const RESULTS_FILE = path.resolve(__dirname, '../../bench/RESULTS.md');

/** The section between `begin` and `end` of bench/RESULTS.md as it stands (with its markers), or ''. */
export function sectionBetween(begin: string, end: string, file = RESULTS_FILE): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  return from >= 0 && to > from ? text.slice(from, to + end.length) : '';
}

/** Puts `section` (markers included) in place of the one between the same markers, or at the end. */
export function replaceSection(begin: string, end: string, section: string, file = RESULTS_FILE): void {
  const current = sectionBetween(begin, end, file);
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  writeFileSync(file, current ? text.replace(current, () => section) : `${text.trimEnd()}\n\n${section}\n`);
}

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

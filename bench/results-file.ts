/**
 * bench/RESULTS.md holds hand-written sections beside the ones benchmarks write, each of those
 * between two markers of its own: a benchmark replaces its section and leaves the rest as it is.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const RESULTS_FILE = path.resolve(__dirname, '../../bench/RESULTS.md');

/** The section between `begin` and `end` as it stands (with its markers), or '' when there is none. */
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

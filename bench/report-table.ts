/** The rows of the benchmark report and their Markdown table (bench/report.ts, bench/scale.ts). */
export interface Row {
  figure: string;
  product: string;
  baseline: string;
  target: string;
  met?: boolean;
}

export function markdownTable(rows: Row[]): string {
  const header = ['figure', 'Temporal pipeline', 'baseline', 'target', 'met'];
  const cells = rows.map((r) => [
    r.figure,
    r.product,
    r.baseline,
    r.target,
    r.met === undefined ? '-' : r.met ? 'yes' : 'NO',
  ]);
  const line = (c: string[]) => `| ${c.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...cells.map(line)].join('\n');
}

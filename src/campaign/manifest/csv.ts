import { stringify } from 'csv-stringify/sync';

/**
 * Cells a spreadsheet would read as a formula (or that some strip before doing so) get a leading
 * apostrophe, so an exported value like `=HYPERLINK(...)` stays text (CSV formula injection).
 */
const FORMULA_TRIGGER = /^[=+\-@\t\r]/;

export function neutralizeFormula(text: string): string {
  return FORMULA_TRIGGER.test(text) ? `'${text}` : text;
}

/** One CSV line (with its line ending) for export: quoted where needed, text cells neutralised. */
export function csvLine(values: (string | number | undefined)[]): string {
  const cells = values.map((value) =>
    value === undefined ? '' : typeof value === 'number' ? String(value) : neutralizeFormula(value),
  );
  // A lone CR is a line break to many readers, and edge spaces are lost by some: quote those too.
  return stringify([cells], { record_delimiter: 'unix', quoted_match: [/\r/, /^\s|\s$/] });
}

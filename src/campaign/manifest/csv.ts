import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';

/** One CSV record with the 1-based line of the file on which it starts. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export interface CsvProblem {
  line: number;
  message: string;
}

export interface ParsedCsv {
  records: CsvRecord[];
  problems: CsvProblem[];
}

/**
 * Reads RFC 4180 CSV (csv-parse): comma-separated fields, records ended by LF, CRLF or CR, quoted
 * fields holding commas, line breaks and doubled quotes. A leading byte-order mark is dropped and
 * blank lines are skipped. Records may differ in length (the manifest reports that per row).
 * Malformed quoting is reported at the line where its record starts and reading resumes on the
 * line after the fault, so one bad row never hides the rest of the file.
 */
export function parseCsv(text: string): ParsedCsv {
  const records: CsvRecord[] = [];
  const problems: CsvProblem[] = [];
  const lineStarts = startsOfLines(text);
  let firstLine = 1;
  while (firstLine <= lineStarts.length) {
    const offset = firstLine - 1;
    // Every line belongs to a record (a blank one as a single empty field), so a record starts
    // on the line after the previous one ends.
    let lastLine = offset;
    try {
      parse(text.slice(lineStarts[offset]), {
        bom: true,
        relax_column_count: true,
        on_record: (fields: string[], { lines }) => {
          const blank = fields.length === 1 && fields[0]!.trim() === '';
          if (!blank) records.push({ line: lastLine + 1, fields });
          lastLine = offset + lines;
          return null;
        },
      });
      break;
    } catch (err) {
      if (!(err instanceof CsvError)) throw err;
      problems.push({ line: lastLine + 1, message: describeCsvError(err) });
      const faultLine = offset + ((err as CsvError & { lines?: number }).lines ?? lineStarts.length);
      firstLine = Math.max(firstLine + 1, faultLine + 1);
    }
  }
  return { records, problems };
}

/** Offsets where each line of the text begins (lines end with LF, CRLF or CR). */
function startsOfLines(text: string): number[] {
  const starts = [0];
  for (const match of text.matchAll(/\r\n|\r|\n/g)) starts.push(match.index + match[0].length);
  return starts;
}

/** The reader's faults in the manifest's words: which field, what is wrong. */
function describeCsvError(err: CsvError): string {
  const field = (err as CsvError & { index?: number }).index;
  const which = field === undefined ? '' : ` in field ${field + 1}`;
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is never closed (missing ")';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `unexpected text after a closing quote${which}`;
    case 'INVALID_OPENING_QUOTE':
      return `a quote inside the unquoted field${which.replace(' in field', '')}`;
    default:
      return err.message;
  }
}

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

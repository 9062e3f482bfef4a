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
 * A small RFC 4180 reader: comma-separated fields, records ended by LF or CRLF, fields in double
 * quotes may hold commas, line breaks and doubled quotes (""). A leading byte-order mark is
 * dropped and blank lines are skipped. Malformed quoting is reported with its line and the
 * record is left out, so one bad row never hides the rest of the file.
 */
export function parseCsv(text: string): ParsedCsv {
  const records: CsvRecord[] = [];
  const problems: CsvProblem[] = [];
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;

  let line = 1;
  let i = 0;
  while (i < input.length) {
    const startLine = line;
    const fields: string[] = [];
    let problem: string | undefined;
    let field = '';
    let endOfRecord = false;

    while (!endOfRecord) {
      if (input[i] === '"') {
        // Quoted field: runs to the next lone quote.
        i++;
        let closed = false;
        while (i < input.length) {
          const ch = input[i]!;
          if (ch === '"') {
            if (input[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (ch === '\n') line++;
          field += ch;
          i++;
        }
        if (!closed) {
          problem ??= 'a quoted field is never closed (missing ")';
          i = input.length;
        } else if (i < input.length && input[i] !== ',' && input[i] !== '\n' && input[i] !== '\r') {
          problem ??= `unexpected text after a closing quote in field ${fields.length + 1}`;
          // Skip to the end of the field so the next records still parse.
          while (i < input.length && input[i] !== ',' && input[i] !== '\n') i++;
        }
      } else {
        while (i < input.length && input[i] !== ',' && input[i] !== '\n' && input[i] !== '\r') {
          if (input[i] === '"') problem ??= `a quote inside the unquoted field ${fields.length + 1}`;
          field += input[i];
          i++;
        }
      }
      fields.push(field);
      field = '';
      if (i >= input.length) {
        endOfRecord = true;
      } else if (input[i] === ',') {
        i++;
      } else {
        // Line end: LF, CRLF or a lone CR.
        if (input[i] === '\r') i++;
        if (input[i] === '\n') i++;
        line++;
        endOfRecord = true;
      }
    }

    const blank = fields.length === 1 && fields[0]!.trim() === '';
    if (problem) problems.push({ line: startLine, message: problem });
    else if (!blank) records.push({ line: startLine, fields });
  }
  return { records, problems };
}

/** Quotes a value for CSV output when it needs it (comma, quote, line break, leading/trailing space). */
export function csvField(value: string | number | undefined): string {
  const text = value === undefined ? '' : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: (string | number | undefined)[]): string {
  return `${values.map(csvField).join(',')}\n`;
}

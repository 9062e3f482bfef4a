import { CsvError, parse, type Info, type Parser } from 'csv-parse';

/** One CSV record with the 1-based line of the file on which it starts. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export interface CsvProblem {
  line: number;
  message: string;
}

export interface CsvLimits {
  /** Records read (lines holding only spaces included) before reading stops. */
  maxRecords: number;
  /** Bytes of one record; a longer one is a problem, and reading resumes after its line. */
  maxRecordBytes: number;
  /** Records that cannot be read before reading stops. */
  maxProblems: number;
}

export interface ParsedCsv {
  records: CsvRecord[];
  problems: CsvProblem[];
  /** Set when reading stopped at a limit, before the end of the file. */
  stopped?: 'records' | 'problems';
}

/** Thrown from the record callback to stop the parser at a limit. */
class StopReading extends Error {}

/**
 * Reads RFC 4180 CSV (csv-parse) as it arrives: comma-separated fields, records ended by LF, CRLF
 * or CR, quoted fields holding commas, line breaks and doubled quotes. A leading byte-order mark
 * is dropped and blank lines are skipped. Records may differ in length (the manifest reports that
 * per row).
 *
 * Malformed quoting, or a record longer than `maxRecordBytes`, is reported at the line where its
 * record starts, and a new parser takes over on the line after the fault, so one bad row never
 * hides the rest of the file. Only the bytes of the record being read are kept for that, and every
 * byte is parsed once: a file of faulty lines costs time in proportion to its size. Reading stops
 * after `maxRecords` records or `maxProblems` faults.
 */
export async function readCsv(chunks: AsyncIterable<Buffer>, limits: CsvLimits): Promise<ParsedCsv> {
  const reader = new CsvReader(limits);
  for await (const chunk of chunks) {
    await reader.write(chunk);
    if (reader.result.stopped) break;
  }
  if (!reader.result.stopped) await reader.end();
  return reader.result;
}

class CsvReader {
  readonly result: ParsedCsv = { records: [], problems: [] };
  private parser: Parser | undefined;
  /** Line of the file that is line 1 to the current parser. */
  private firstLine = 1;
  /** Lines (to the parser) up to the end of the last record, and blank lines skipped by then. */
  private endLine = 0;
  private blankLines = 0;
  /**
   * Bytes given to the current parser, and those from the start of its unfinished record on (past
   * blank lines), which begin its line `heldLine`.
   */
  private fed = 0;
  private held: Buffer = Buffer.alloc(0);
  private heldLine = 1;
  /** Line breaks still to pass (the line of a fault goes on in bytes not yet received). */
  private breaksToSkip = 0;
  /** The last byte passed was a CR: an LF right after it belongs to the same line break. */
  private afterCr = false;
  private records = 0;

  constructor(private readonly limits: CsvLimits) {}

  async write(chunk: Buffer): Promise<void> {
    let data = this.skipBreaks(chunk);
    while (data.length > 0 && !this.result.stopped) {
      const parser = (this.parser ??= this.newParser());
      this.dropBlankLines();
      this.held = this.held.length === 0 ? data : Buffer.concat([this.held, data]);
      this.fed += data.length;
      const err = await new Promise<Error | null | undefined>((resolve) => parser.write(data, resolve));
      data = err ? this.recover(err) : Buffer.alloc(0);
    }
  }

  async end(): Promise<void> {
    while (this.parser && !this.result.stopped) {
      const parser = this.parser;
      this.parser = undefined;
      const err = await new Promise<Error | undefined>((resolve) => {
        parser.once('error', resolve);
        parser.once('finish', () => resolve(undefined));
        parser.end();
      });
      if (!err) return;
      // What follows the fault's line goes to a new parser, which is ended in turn.
      const rest = this.recover(err);
      if (rest.length > 0) await this.write(rest);
    }
  }

  private newParser(): Parser {
    const parser = parse({
      // Only the file's first parser starts at its beginning.
      bom: this.firstLine === 1,
      relax_column_count: true,
      skip_empty_lines: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      max_record_size: this.limits.maxRecordBytes,
      on_record: (fields: string[], info: Info) => this.onRecord(fields, info),
    });
    // Faults arrive through the write callbacks; the event would otherwise be unhandled.
    parser.on('error', () => undefined);
    this.fed = 0;
    this.held = Buffer.alloc(0);
    this.endLine = 0;
    this.blankLines = 0;
    this.heldLine = 1;
    return parser;
  }

  private onRecord(fields: string[], info: Info): null {
    const line = this.recordStart(info.empty_lines);
    this.endLine = info.lines;
    this.blankLines = info.empty_lines;
    // Keep only the bytes after this record: a fault in the next one is found among them.
    this.held = this.held.subarray(this.held.length - (this.fed - info.bytes));
    this.heldLine = info.lines + 1;
    if (!this.counted()) throw new StopReading();
    // A line holding only spaces is no row, but it is read like one, so it counts toward the limit.
    if (!(fields.length === 1 && fields[0]!.trim() === '')) this.result.records.push({ line, fields });
    return null;
  }

  /** Counts one more record read; false once past the limit (reading stops). */
  private counted(): boolean {
    this.records++;
    if (this.records <= this.limits.maxRecords) return true;
    this.result.stopped = 'records';
    return false;
  }

  /** Line of the file on which the record after the last one starts, past `blankLines` blank lines. */
  private recordStart(blankLines: number): number {
    return this.firstLine + this.endLine + (blankLines - this.blankLines);
  }

  /**
   * Records the fault and returns the bytes after its line (for a new parser); an empty buffer when
   * that line goes on beyond what was received, or when reading stops.
   */
  private recover(err: Error): Buffer {
    this.parser = undefined;
    if (err instanceof StopReading) return Buffer.alloc(0);
    if (!(err instanceof CsvError)) throw err;
    const fault = err as CsvError & Info;
    this.result.problems.push({
      line: this.recordStart(fault.empty_lines),
      message: describeCsvError(err, this.limits.maxRecordBytes),
    });
    if (this.result.problems.length >= this.limits.maxProblems) {
      this.result.stopped = 'problems';
      return Buffer.alloc(0);
    }
    if (!this.counted()) return Buffer.alloc(0);
    const held = this.held;
    const faultLine = this.firstLine + fault.lines - 1;
    this.breaksToSkip = fault.lines - this.heldLine + 1;
    this.firstLine = faultLine + 1;
    this.held = Buffer.alloc(0);
    this.afterCr = false;
    return this.skipBreaks(held);
  }

  /**
   * Blank lines before the unfinished record are no part of it: they are let go, so a long run of
   * them is not carried from chunk to chunk. A CR at the very end stays (an LF may follow it).
   */
  private dropBlankLines(): void {
    let at = 0;
    while (at < this.held.length - 1 && (this.held[at] === CR || this.held[at] === LF)) {
      if (this.held[at] === CR && this.held[at + 1] === LF) at++;
      at++;
      this.heldLine++;
    }
    if (at > 0) this.held = this.held.subarray(at);
  }

  /** Passes `breaksToSkip` line breaks (CRLF, LF or CR) and returns what follows them. */
  private skipBreaks(data: Buffer): Buffer {
    let at = 0;
    if (this.afterCr && data.length > 0) {
      if (data[0] === LF) at = 1;
      this.afterCr = false;
    }
    while (this.breaksToSkip > 0) {
      const lf = data.indexOf(LF, at);
      const cr = data.indexOf(CR, at);
      const next = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (next === -1) return Buffer.alloc(0);
      this.breaksToSkip--;
      at = next + 1;
      if (data[next] === CR) {
        if (at === data.length) this.afterCr = true;
        else if (data[at] === LF) at++;
      }
    }
    return data.subarray(at);
  }
}

const LF = 0x0a;
const CR = 0x0d;

/** The reader's faults in the manifest's words: which field, what is wrong. */
function describeCsvError(err: CsvError, maxRecordBytes: number): string {
  const field = (err as CsvError & { index?: number }).index;
  const which = field === undefined ? '' : ` in field ${field + 1}`;
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is never closed (missing ")';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `unexpected text after a closing quote${which}`;
    case 'INVALID_OPENING_QUOTE':
      return `a quote inside the unquoted field${which.replace(' in field', '')}`;
    case 'CSV_MAX_RECORD_SIZE':
      return `is longer than the limit of ${maxRecordBytes} bytes for one row`;
    default:
      return err.message;
  }
}

/** One line of a JSONL file, or the reason it could not be read, with its 1-based line number. */
export type JsonlLine = { line: number; text: string } | { line: number; tooLong: true };

export interface JsonlLimits {
  /** Lines read (all but empty ones) before reading stops. */
  maxLines: number;
  /** Bytes of one line; a longer one is reported without being kept, and reading goes on after it. */
  maxLineBytes: number;
}

export interface ParsedJsonl {
  lines: JsonlLine[];
  /** Set when reading stopped at the line limit, before the end of the file. */
  stopped?: 'lines';
}

/**
 * Splits JSONL as it arrives into its non-blank lines (LF-separated; a CR before it is JSON
 * whitespace), keeping at most `maxLineBytes` of a line: a longer one is passed over as it arrives.
 * A leading byte-order mark is dropped. An LF byte never occurs inside a UTF-8 character, so
 * lines are split on bytes and each is decoded whole.
 */
export async function readJsonlLines(
  chunks: AsyncIterable<Buffer>,
  limits: JsonlLimits,
): Promise<ParsedJsonl> {
  const result: ParsedJsonl = { lines: [] };
  let line = 1;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  let read = 0;
  /** Ends the line being read; false once past the line limit (reading stops). */
  const finishLine = (): boolean => {
    const number = line++;
    // An empty line costs nothing to pass over: it is not counted.
    if (pendingBytes === 0 && !tooLong) return true;
    const text = tooLong ? undefined : Buffer.concat(pending, pendingBytes).toString('utf8');
    pending = [];
    pendingBytes = 0;
    tooLong = false;
    // A line holding only spaces is no row, but it is read like one, so it counts toward the limit.
    if (text === undefined) result.lines.push({ line: number, tooLong: true });
    else if (text.trim() !== '')
      result.lines.push({ line: number, text: number === 1 ? text.replace(/^\uFEFF/, '') : text });
    if (++read <= limits.maxLines) return true;
    result.stopped = 'lines';
    return false;
  };
  const keep = (piece: Buffer) => {
    if (tooLong || piece.length === 0) return;
    if (pendingBytes + piece.length > limits.maxLineBytes) {
      tooLong = true;
      pending = [];
      pendingBytes = 0;
      return;
    }
    pending.push(piece);
    pendingBytes += piece.length;
  };
  for await (const chunk of chunks) {
    let at = 0;
    for (let lf = chunk.indexOf(LF); lf !== -1; lf = chunk.indexOf(LF, at)) {
      keep(chunk.subarray(at, lf));
      if (!finishLine()) return result;
      at = lf + 1;
    }
    keep(chunk.subarray(at));
  }
  if (pendingBytes > 0 || tooLong) finishLine();
  return result;
}

const LF = 0x0a;

import { extname } from 'node:path';
import { readCsv } from './csv-reader';
import { readJsonlLines } from './jsonl-reader';
import { MAX_MANIFEST_ROW_BYTES, MAX_MANIFEST_ROWS, MAX_UNREADABLE_ROWS } from './limits';
import type { ManifestIssue } from './manifest-issue';
import { MANIFEST_FIELDS, manifestField, REQUIRED_FIELDS, type ManifestField } from './row-schema';

export type ManifestFormat = 'csv' | 'jsonl';

/** A row as read from the file, keyed by manifest field, not yet validated. */
export interface RawRow {
  row: number;
  values: Partial<Record<ManifestField, unknown>>;
}

export interface RawRows {
  rows: RawRow[];
  /** Data rows in the file (blank lines not counted), including the ones that could not be read. */
  count: number;
  issues: ManifestIssue[];
  /**
   * Why the manifest is refused whole, its rows left unchecked: reading stopped at a limit. The
   * issues found before it are kept (the unreadable rows that stopped it).
   */
  refusal?: string;
}

const COLUMNS = MANIFEST_FIELDS.join(', ');

/** By extension (.csv, .jsonl, .ndjson); otherwise a first non-blank character of "{" means JSONL. */
export function detectManifestFormat(text: string, fileName?: string): ManifestFormat {
  return formatByName(fileName) ?? formatByStart(text);
}

export function formatByName(fileName: string | undefined): ManifestFormat | undefined {
  const ext = fileName ? extname(fileName).toLowerCase() : '';
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  return undefined;
}

/** Given the text up to its first non-blank character. */
export function formatByStart(text: string): ManifestFormat {
  return text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('{')
    ? 'jsonl'
    : 'csv';
}

/** Reads the rows as the file arrives, stopping at the limits on rows, row size and unreadable rows. */
export function readManifestRows(chunks: AsyncIterable<Buffer>, format: ManifestFormat): Promise<RawRows> {
  return format === 'csv' ? readCsvRows(chunks) : readJsonlRows(chunks);
}

const TOO_MANY_ROWS = `has more than ${MAX_MANIFEST_ROWS} rows, the limit: split it into several campaigns`;
const TOO_LONG = `is longer than the limit of ${MAX_MANIFEST_ROW_BYTES} bytes for one row`;

function tooManyUnreadable(line: number): string {
  return `has ${MAX_UNREADABLE_ROWS} rows that cannot be read; reading stopped at line ${line}, the rest was not checked`;
}

/** The rows of a JSON array (the API's body form); row numbers are 1-based positions. */
export function readObjectRows(items: unknown[]): RawRows {
  const issues: ManifestIssue[] = [];
  const rows: RawRow[] = [];
  items.forEach((item, index) => {
    const row = objectRow(item, index + 1, issues);
    if (row) rows.push(row);
  });
  return { rows, count: items.length, issues };
}

async function readCsvRows(chunks: AsyncIterable<Buffer>): Promise<RawRows> {
  const { records, problems, stopped } = await readCsv(chunks, {
    // The header is a record too.
    maxRecords: MAX_MANIFEST_ROWS + 1,
    maxRecordBytes: MAX_MANIFEST_ROW_BYTES,
    maxProblems: MAX_UNREADABLE_ROWS,
  });
  if (stopped === 'records')
    return { rows: [], count: MAX_MANIFEST_ROWS + 1, issues: [], refusal: TOO_MANY_ROWS };
  const issues: ManifestIssue[] = problems.map((p) => ({ row: p.line, field: '(row)', message: p.message }));
  const [header, ...data] = records;
  if (!header) {
    issues.push({ row: 1, field: '(file)', message: `is empty: expected a header line (${COLUMNS})` });
    return { rows: [], count: problems.length, issues };
  }
  const count = data.length + problems.filter((p) => p.line > header.line).length;
  const refusal = stopped === 'problems' ? { refusal: tooManyUnreadable(problems.at(-1)!.line) } : {};
  const columns: (ManifestField | undefined)[] = [];
  const headerIssues: ManifestIssue[] = [];
  for (const [index, name] of header.fields.entries()) {
    const field = manifestField(name);
    if (!field) {
      headerIssues.push({
        row: header.line,
        field: '(header)',
        message: `column ${index + 1} "${name.trim()}" is not a manifest column (${COLUMNS})`,
      });
    } else if (columns.includes(field)) {
      headerIssues.push({ row: header.line, field: '(header)', message: `column "${field}" appears twice` });
    }
    columns.push(field);
  }
  for (const required of REQUIRED_FIELDS) {
    if (!columns.includes(required))
      headerIssues.push({ row: header.line, field: '(header)', message: `has no "${required}" column` });
  }
  if (!columns.includes('selfies') && !columns.includes('modelId'))
    headerIssues.push({
      row: header.line,
      field: '(header)',
      message: 'has no "selfies" column (or "modelId", for rows that generate from an existing model)',
    });
  // With a bad header no row can be read reliably: report the header alone.
  if (headerIssues.length > 0) return { rows: [], count, issues: [...headerIssues, ...issues], ...refusal };

  const rows: RawRow[] = [];
  for (const record of data) {
    if (record.fields.length !== columns.length) {
      issues.push({
        row: record.line,
        subjectId: subjectHint(record.fields[columns.indexOf('subjectId')]),
        field: '(row)',
        message: `has ${record.fields.length} fields; the header has ${columns.length}`,
      });
      continue;
    }
    const values: RawRow['values'] = {};
    record.fields.forEach((cell, i) => (values[columns[i]!] = cell));
    rows.push({ row: record.line, values });
  }
  return { rows, count, issues: issues.sort((a, b) => a.row - b.row), ...refusal };
}

async function readJsonlRows(chunks: AsyncIterable<Buffer>): Promise<RawRows> {
  const { lines, stopped } = await readJsonlLines(chunks, {
    maxLines: MAX_MANIFEST_ROWS,
    maxLineBytes: MAX_MANIFEST_ROW_BYTES,
  });
  if (stopped) return { rows: [], count: MAX_MANIFEST_ROWS + 1, issues: [], refusal: TOO_MANY_ROWS };
  const issues: ManifestIssue[] = [];
  const rows: RawRow[] = [];
  let count = 0;
  let unreadable = 0;
  for (const line of lines) {
    count++;
    let value: unknown;
    if ('tooLong' in line) {
      issues.push({ row: line.line, field: '(row)', message: TOO_LONG });
    } else {
      try {
        value = JSON.parse(line.text);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        issues.push({ row: line.line, field: '(row)', message: `is not valid JSON (${reason})` });
      }
    }
    if (value === undefined) {
      if (++unreadable < MAX_UNREADABLE_ROWS) continue;
      return { rows, count, issues, refusal: tooManyUnreadable(line.line) };
    }
    const row = objectRow(value, line.line, issues);
    if (row) rows.push(row);
  }
  if (count === 0) issues.push({ row: 1, field: '(file)', message: 'holds no rows' });
  return { rows, count, issues };
}

function objectRow(value: unknown, row: number, issues: ManifestIssue[]): RawRow | undefined {
  // A row that is not an object has nothing to check further.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ row, field: '(row)', message: 'must be a JSON object' });
    return undefined;
  }
  // Unknown keys are reported; the known ones are still checked, so every problem shows at once.
  const values: RawRow['values'] = {};
  for (const [key, cell] of Object.entries(value)) {
    const field = manifestField(key);
    if (!field) {
      issues.push({
        row,
        subjectId: subjectHint((value as Record<string, unknown>).subjectId),
        field: key,
        message: `is not a manifest field (${COLUMNS})`,
      });
    } else {
      values[field] = cell;
    }
  }
  return { row, values };
}

/** A subject id good enough to name a row in a message. */
export function subjectHint(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' && value.length <= 128 ? value.trim() : undefined;
}

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';

import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { generationInputSchema } from '@avatar-pipeline/client/contracts/model-runs';
import { pipelineInputSchema } from '@avatar-pipeline/client/contracts/pipeline-input';
import { MAX_MANIFEST_BYTES, MAX_MANIFEST_ROWS } from './limits';
import type { ManifestIssue } from './manifest-issue';
import { manifestChunks, peekStart, type ByteCount, type ManifestSource } from './manifest-source';
import {
  formatByName,
  formatByStart,
  readManifestRows,
  readObjectRows,
  subjectHint,
  type ManifestFormat,
  type RawRow,
  type RawRows,
} from './read-rows';
import { manifestRowSchema, REQUIRED_FIELDS, type ManifestField, type ManifestRow } from './row-schema';
import { expandSelfies, type ExpandedSelfies, type SelfieCheckOptions } from './selfie-files';

export { MAX_MANIFEST_BYTES, MAX_MANIFEST_ROWS };

/** A problem with a row's model at the provider, by manifest field. */
export interface ModelProblem {
  field: 'modelId' | 'gender';
  message: string;
}

/**
 * Asks the provider whether a row can generate under its modelId: a model (parent 0), DONE, of
 * the row's gender (packages/client/src/client/generation-check.ts has the rules). Empty when it can.
 */
export type ModelCheck = (target: { modelId: number; gender: 1 | 2 }) => Promise<ModelProblem[]>;

export interface ManifestValidationOptions extends SelfieCheckOptions {
  /** Style ids the provider offers; when given, any other id is refused. */
  knownStyles?: number[];
  /** Checks rows' modelIds at the provider; without it they are checked by shape only. */
  checkModel?: ModelCheck;
  /** Rows whose files are checked at once. */
  concurrency?: number;
}

export interface ManifestValidation {
  format: ManifestFormat | 'json';
  /** Data rows in the manifest. */
  rows: number;
  /** The valid rows' subjects, in file order. */
  subjects: CampaignSubject[];
  /** Every problem found, by row. */
  issues: ManifestIssue[];
  /** Rows refused (line numbers). */
  invalidRows: number[];
}

/** A manifest read up to its end or to a limit, its rows not yet checked. */
export interface ManifestRead {
  format: ManifestFormat;
  raw: RawRows;
}

/**
 * Reads a manifest (CSV or JSONL; detected from the file name or the first non-blank character)
 * as it arrives. Reading stops at the first limit passed (bytes, rows, row size, unreadable rows),
 * which then refuses the manifest whole; nothing past it is read.
 */
export async function readManifest(
  source: ManifestSource,
  options: { format?: ManifestFormat; fileName?: string } = {},
): Promise<ManifestRead> {
  const count: ByteCount = { bytes: 0, over: false };
  let chunks: AsyncIterable<Buffer> = manifestChunks(source, MAX_MANIFEST_BYTES, count);
  let format = options.format ?? formatByName(options.fileName);
  if (!format) {
    const peeked = await peekStart(chunks);
    format = formatByStart(peeked.start);
    chunks = peeked.chunks;
  }
  const raw = await readManifestRows(chunks, format);
  if (count.over)
    return {
      format,
      raw: {
        rows: [],
        count: 0,
        issues: [],
        refusal: `is larger than the limit of ${MAX_MANIFEST_BYTES} bytes: split it into several campaigns`,
      },
    };
  return { format, raw };
}

/** Checks the rows of a manifest read by readManifest. */
export function validateManifestRead(
  read: ManifestRead,
  options: ManifestValidationOptions = {},
): Promise<ManifestValidation> {
  return validate(read.raw, read.format, options);
}

/** Reads and validates a manifest file; relative selfie paths are taken from the file's folder. */
export async function loadManifestFile(
  path: string,
  options: ManifestValidationOptions = {},
): Promise<ManifestValidation> {
  const { size } = await stat(path);
  if (size > MAX_MANIFEST_BYTES) return tooLarge(size, formatByName(path) ?? 'csv');
  const read = await readManifest(createReadStream(path), { fileName: path });
  return validateManifestRead(read, { baseDir: dirname(resolve(path)), ...options });
}

/** Validates manifest text (CSV or JSONL; detected from the file name or the content). */
export async function validateManifestText(
  text: string,
  options: ManifestValidationOptions & { format?: ManifestFormat; fileName?: string } = {},
): Promise<ManifestValidation> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_MANIFEST_BYTES)
    return tooLarge(
      bytes,
      options.format ?? formatByName(options.fileName) ?? formatByStart(text.slice(0, 1024).trimStart()),
    );
  const { format, fileName, ...checks } = options;
  return validateManifestRead(
    await readManifest(text, { ...(format ? { format } : {}), ...(fileName ? { fileName } : {}) }),
    checks,
  );
}

/** Validates rows given as objects (the API's JSON form). */
export async function validateManifestObjects(
  items: unknown[],
  options: ManifestValidationOptions = {},
): Promise<ManifestValidation> {
  return validate(readObjectRows(items), 'json', options);
}

/** Refused whole: a single issue, no row read or checked. */
function refusedWhole(
  format: ManifestValidation['format'],
  rows: number,
  message: string,
): ManifestValidation {
  return { format, rows, subjects: [], issues: [{ row: 1, field: '(file)', message }], invalidRows: [1] };
}

function tooLarge(bytes: number, format: ManifestValidation['format']): ManifestValidation {
  return refusedWhole(
    format,
    0,
    `is ${bytes} bytes, more than the limit of ${MAX_MANIFEST_BYTES}: split it into several campaigns`,
  );
}

async function validate(
  raw: RawRows,
  format: ManifestValidation['format'],
  options: ManifestValidationOptions,
): Promise<ManifestValidation> {
  if (raw.refusal) {
    const issues = [{ row: 1, field: '(file)', message: raw.refusal }, ...raw.issues];
    return {
      format,
      rows: raw.count,
      subjects: [],
      issues,
      invalidRows: [...new Set(issues.map((i) => i.row))],
    };
  }
  if (raw.count > MAX_MANIFEST_ROWS) {
    return refusedWhole(
      format,
      raw.count,
      `has ${raw.count} rows, more than the limit of ${MAX_MANIFEST_ROWS}: split it into several campaigns`,
    );
  }
  const issues = [...raw.issues];
  const duplicates = duplicateIssues(raw.rows);
  const duplicated = new Set(duplicates.map((issue) => issue.row));
  const selfies = selfieChecks(options);
  const checked: { row: RawRow; subject?: CampaignSubject }[] = [];
  const concurrency = options.concurrency ?? 16;
  for (let start = 0; start < raw.rows.length; start += concurrency) {
    const batch = raw.rows.slice(start, start + concurrency);
    const results = await Promise.all(
      batch.map((row) => validateRow(row, options, duplicated.has(row.row) ? undefined : selfies)),
    );
    results.forEach((result, i) => {
      for (const issue of result.issues) issues.push(issue);
      checked.push({ row: batch[i]!, ...(result.subject ? { subject: result.subject } : {}) });
    });
  }
  for (const issue of duplicates) issues.push(issue);
  if (raw.count === 0 && issues.length === 0)
    issues.push({ row: 1, field: '(file)', message: 'holds no rows' });

  const invalid = new Set(issues.map((issue) => issue.row));
  const subjects = checked.filter((c) => c.subject && !invalid.has(c.row.row)).map((c) => c.subject!);
  return {
    format,
    rows: raw.count,
    subjects,
    issues: issues.sort((a, b) => a.row - b.row),
    invalidRows: [...invalid].sort((a, b) => a - b),
  };
}

type SelfieCheck = (entries: string[]) => Promise<ExpandedSelfies>;

/**
 * Expands and checks a row's selfie entries, each distinct entry once per manifest: rows naming
 * the same files or folders cost one look at the disk.
 */
function selfieChecks(options: SelfieCheckOptions): SelfieCheck {
  const seen = new Map<string, Promise<ExpandedSelfies>>();
  const one = (entry: string) => {
    let result = seen.get(entry);
    if (!result) seen.set(entry, (result = expandSelfies([entry], options)));
    return result;
  };
  return async (entries) => {
    const expanded = await Promise.all(entries.map(one));
    return {
      images: expanded.flatMap((e) => e.images),
      problems: expanded.flatMap((e, entry) => e.problems.map((p) => ({ ...p, entry }))),
    };
  };
}

/**
 * Checks one row field by field. Without `selfies` (a row refused anyway for its duplicate subject
 * id) its files are not looked at: those checks are the costly part, and they run once the id is
 * made unique.
 */
async function validateRow(
  raw: RawRow,
  options: ManifestValidationOptions,
  selfies: SelfieCheck | undefined,
): Promise<{ issues: ManifestIssue[]; subject?: CampaignSubject }> {
  const subjectId = subjectHint(raw.values.subjectId);
  const issues: ManifestIssue[] = [];
  const report = (field: string, message: string) =>
    issues.push({ row: raw.row, ...(subjectId ? { subjectId } : {}), field, message });

  // Field by field, so one bad field never hides another.
  const parsed: Partial<ManifestRow> = {};
  for (const field of Object.keys(manifestRowSchema.shape) as ManifestField[]) {
    const value = raw.values[field];
    // A blank selfies cell is no selfies: a row generating from a modelId leaves it empty.
    if (value === undefined || value === null || (field === 'selfies' && isBlank(value))) {
      if (REQUIRED_FIELDS.includes(field)) report(field, 'is required');
      continue;
    }
    const result = manifestRowSchema.shape[field].safeParse(value);
    if (result.success) (parsed as Record<string, unknown>)[field] = result.data;
    else for (const issue of result.error.issues) report(joinPath([field, ...issue.path]), issue.message);
  }

  if (parsed.styles && options.knownStyles) {
    const known = new Set(options.knownStyles);
    parsed.styles.forEach((style, i) => {
      if (!known.has(style))
        report(
          `styles.${i}`,
          `style ${style} is not offered by the provider (styles: ${options.knownStyles!.join(', ')})`,
        );
    });
  }

  if (parsed.modelId !== undefined) {
    const unused = 'must be empty when modelId is set: the row generates from that model, nothing is trained';
    if (parsed.selfies) report('selfies', unused);
    if (parsed.mainImage !== undefined) report('mainImage', unused);
    if (parsed.gender && options.checkModel) {
      for (const problem of await options.checkModel({ modelId: parsed.modelId, gender: parsed.gender }))
        report(problem.field, problem.message);
    }
    if (issues.length > 0 || !parsed.subjectId || !parsed.gender || !parsed.styles) return { issues };
    const subject = modelSubject(raw.row, { ...parsed, subjectId: parsed.subjectId }, report);
    return subject ? { issues, subject } : { issues };
  }
  // A bad modelId already says what is wrong with the row; a missing one means selfies are needed.
  if (!parsed.selfies && !issues.some((issue) => /^(selfies|modelId)\b/.test(issue.field)))
    report('selfies', 'is required (or a modelId, to generate from an existing model)');

  let images: string[] | undefined;
  if (parsed.selfies && selfies) {
    const expanded = await selfies(parsed.selfies);
    for (const problem of expanded.problems) report(`selfies.${problem.entry}`, problem.message);
    if (expanded.problems.length === 0) images = expanded.images;
  }

  let mainImageIndex = 0;
  if (images && parsed.mainImage !== undefined) {
    const found = mainImagePosition(parsed.mainImage, parsed.selfies ?? [], images);
    if (typeof found === 'string') report('mainImage', found);
    else mainImageIndex = found;
  }

  if (issues.length > 0 || !images || !parsed.subjectId || !parsed.gender || !parsed.styles)
    return { issues };

  // The pipeline's own schema has the last word (selfie count, reference forms, main image range).
  const input = pipelineInputSchema.safeParse({
    images,
    styles: parsed.styles,
    gender: parsed.gender,
    mainImageIndex,
    subjectId: parsed.subjectId,
  });
  if (!input.success) {
    for (const issue of input.error.issues) report(joinPath(renamePipelinePath(issue.path)), issue.message);
    return { issues };
  }
  return {
    issues,
    subject: {
      subjectId: parsed.subjectId,
      gender: input.data.gender,
      styles: input.data.styles,
      images: input.data.images,
      mainImageIndex: input.data.mainImageIndex,
      row: raw.row,
    },
  };
}

/**
 * A row that generates under an existing model: the generation run's own schema has the last
 * word (style count); undefined after reporting why not.
 */
function modelSubject(
  row: number,
  parsed: Partial<ManifestRow> & { subjectId: string },
  report: (field: string, message: string) => void,
): CampaignSubject | undefined {
  const input = generationInputSchema.safeParse({
    modelId: parsed.modelId,
    styles: parsed.styles,
    gender: parsed.gender,
    subjectId: parsed.subjectId,
  });
  if (!input.success) {
    for (const issue of input.error.issues) report(joinPath(issue.path), issue.message);
    return undefined;
  }
  return {
    subjectId: parsed.subjectId,
    gender: input.data.gender,
    styles: input.data.styles,
    images: [],
    mainImageIndex: 0,
    modelId: input.data.modelId,
    row,
  };
}

/** An empty cell, or an empty list in JSONL. */
function isBlank(value: unknown): boolean {
  return (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

/** Names the selfie by 1-based position or by file name; a string result is the reason it cannot. */
function mainImagePosition(choice: number | string, entries: string[], images: string[]): number | string {
  if (typeof choice === 'number') {
    if (choice <= images.length) return choice - 1;
    return `is ${choice}, but the row has ${images.length} selfie${images.length === 1 ? '' : 's'}`;
  }
  const matches = images
    .map((image, index) => ({ image, index }))
    .filter(({ image }) => image === choice || basename(image) === choice || entries.includes(choice));
  if (matches.length === 1) return matches[0]!.index;
  if (matches.length === 0) return `"${choice}" names none of the row's selfies`;
  return `"${choice}" matches ${matches.length} selfies; name one file`;
}

/** Pipeline field names in the manifest's words. */
function renamePipelinePath(path: PropertyKey[]): PropertyKey[] {
  const [head, ...rest] = path;
  if (head === 'images') return ['selfies', ...rest];
  if (head === 'mainImageIndex') return ['mainImage', ...rest];
  return path;
}

function joinPath(path: PropertyKey[]): string {
  return path.map(String).join('.');
}

/**
 * Every row of a subject id that appears more than once is refused: which one was meant is not ours
 * to guess. Each message names the count and the first line only, so the work and the answer stay
 * linear in the number of rows however many duplicates there are.
 */
function duplicateIssues(rows: RawRow[]): ManifestIssue[] {
  const byId = new Map<string, number[]>();
  for (const row of rows) {
    const id = subjectHint(row.values.subjectId);
    if (!id) continue;
    const rows = byId.get(id);
    if (rows) rows.push(row.row);
    else byId.set(id, [row.row]);
  }
  const issues: ManifestIssue[] = [];
  for (const [subjectId, rows] of byId) {
    if (rows.length < 2) continue;
    const others = rows.length === 2 ? `lines ${rows[0]}, ${rows[1]}` : `first on line ${rows[0]}`;
    const message = `"${subjectId}" is used by ${rows.length} rows (${others}); subject ids must be unique`;
    for (const row of rows) issues.push({ row, subjectId, field: 'subjectId', message });
  }
  return issues;
}

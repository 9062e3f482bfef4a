import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  campaignSubjectSchema,
  ERASED_SUBJECT,
  isErased,
  type CampaignSubject,
  type ManifestEntry,
  type ManifestRef,
} from './contracts/campaign';
import { AvatarPipelineError } from '@avatar-pipeline/client/errors';

/** The stored manifest is not where it should be, or not what the campaign started with. */
export class CampaignManifestError extends AvatarPipelineError {
  constructor(
    message: string,
    /** True when waiting cannot help (the file changed or lies outside the campaign folder). */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/**
 * Writes a campaign's validated subjects as JSONL under `dir` (CAMPAIGN_DIR), named after the
 * campaign. The workflow holds only the path, digest and count; workers read pages of it, so a
 * campaign of any size never carries its manifest through workflow history. Writing the same
 * subjects again is a no-op; different subjects under a campaign id already used are refused.
 * Beside it, the campaign's id: the file name cannot be turned back into it, and erasure tells
 * the campaign whose manifest held the person.
 */
export async function storeCampaignManifest(
  dir: string,
  campaignId: string,
  subjects: CampaignSubject[],
): Promise<ManifestRef> {
  const root = resolve(dir);
  await mkdir(root, { recursive: true });
  const text = subjects.map((s) => JSON.stringify(s)).join('\n') + (subjects.length > 0 ? '\n' : '');
  const sha256 = createHash('sha256').update(text).digest('hex');
  const path = campaignManifestPath(root, campaignId);
  const existing = await readFile(path, 'utf8').catch(() => undefined);
  if (existing !== undefined) {
    if (createHash('sha256').update(existing).digest('hex') !== sha256) {
      throw new CampaignManifestError(
        `campaign "${campaignId}" already has a different manifest (${path}); choose another campaign id`,
        true,
      );
    }
  } else {
    await writeAtomically(campaignRecordPath(path), JSON.stringify({ campaignId } satisfies CampaignRecord));
    await writeAtomically(path, text);
  }
  return { path, sha256, total: subjects.length };
}

/** Where a campaign's subjects are stored under `dir` (CAMPAIGN_DIR). */
function campaignManifestPath(dir: string, campaignId: string): string {
  return join(resolve(dir), `${fileNameFor(campaignId)}.subjects.jsonl`);
}

interface ParsedManifest {
  sha256: string;
  /** The file as read: erasure rewrites it, so a cached copy is used only while the file is unchanged. */
  version: string;
  lines: string[];
  /** The subject ids of this version, computed when first asked. */
  subjectIds?: ReadonlySet<string>;
}

const cache = new Map<string, ParsedManifest>();
const CACHE_ENTRIES = 8;

/**
 * Subjects [from, from + count) of a stored manifest, after checking its place and digest. An
 * erased subject keeps its place (the campaign's ledger is indexed by it) as ERASED_SUBJECT.
 */
export async function readCampaignSubjects(
  ref: ManifestRef,
  dir: string,
  from: number,
  count: number,
): Promise<ManifestEntry[]> {
  const manifest = await openManifest(ref, dir);
  return manifest.lines.slice(from, from + count).map((line, i) => {
    const json: unknown = JSON.parse(line);
    if (isErased(json)) return ERASED_SUBJECT;
    const parsed = campaignSubjectSchema.safeParse(json);
    if (!parsed.success) {
      throw new CampaignManifestError(
        `subject #${from + i} of ${ref.path} is not valid: ${parsed.error.message}`,
        true,
      );
    }
    return parsed.data;
  });
}

/**
 * The ids of the subjects a stored manifest holds now: an erased person is not among them. What
 * shows a campaign's progress keeps only these ids (the campaign's own lists may predate erasure).
 */
export async function campaignSubjectIds(ref: ManifestRef, dir: string): Promise<ReadonlySet<string>> {
  const manifest = await openManifest(ref, dir);
  manifest.subjectIds ??= new Set(
    manifest.lines.flatMap((line) => {
      const json = JSON.parse(line) as { subjectId?: unknown };
      return typeof json.subjectId === 'string' ? [json.subjectId] : [];
    }),
  );
  return manifest.subjectIds;
}

async function openManifest(ref: ManifestRef, dir: string): Promise<ParsedManifest> {
  const path = await insideDir(ref.path, dir);
  const unreadable = (err: NodeJS.ErrnoException) => {
    throw new CampaignManifestError(
      `cannot read the campaign manifest ${ref.path} (${err.code ?? err.message}); is CAMPAIGN_DIR shared by starters and workers?`,
      false,
    );
  };
  const info = await stat(path).catch(unreadable);
  const version = `${info.ino}:${info.size}:${info.mtimeMs}`;
  const cached = cache.get(ref.path);
  if (cached && cached.sha256 === ref.sha256 && cached.version === version) return cached;
  const text = await readFile(path, 'utf8').catch(unreadable);
  const sha256 = createHash('sha256').update(text).digest('hex');
  if (sha256 !== ref.sha256 && !(await erasedFrom(path, ref.sha256, sha256))) {
    throw new CampaignManifestError(
      `the campaign manifest ${ref.path} changed after the campaign started`,
      true,
    );
  }
  const lines = text.split('\n').filter((line) => line.length > 0);
  if (lines.length !== ref.total) {
    throw new CampaignManifestError(
      `the campaign manifest ${ref.path} holds ${lines.length} subjects, not ${ref.total}`,
      true,
    );
  }
  const parsed: ParsedManifest = { sha256: ref.sha256, version, lines };
  cache.set(ref.path, parsed);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return parsed;
}

async function insideDir(path: string, dir: string): Promise<string> {
  const root = await realpath(dir).catch(() => resolve(dir));
  const real = await realpath(path).catch(() => resolve(path));
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) {
    throw new CampaignManifestError(`the campaign manifest ${path} is outside CAMPAIGN_DIR (${dir})`, true);
  }
  return real;
}

/** Campaign ids are free text; file names keep letters, digits and . _ - and a digest for uniqueness. */
function fileNameFor(campaignId: string): string {
  const readable = campaignId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
  const digest = createHash('sha256').update(campaignId).digest('hex').slice(0, 12);
  return `${readable}-${digest}`;
}

/**
 * What erasure changed in a manifest: the digest the campaign started with (kept in its workflow
 * history, which cannot change) and the digests of the file after each erasure replaced lines.
 * A file with one of those digests is the campaign's manifest, less the erased subjects.
 */
interface ErasureRecord {
  original: string;
  erased: string[];
}

const erasureRecordPath = (manifestPath: string) => `${manifestPath}.erasures.json`;

/** Whose manifest it is (written with it by storeCampaignManifest). */
interface CampaignRecord {
  campaignId: string;
}

const campaignRecordPath = (manifestPath: string) => `${manifestPath}.campaign.json`;

async function erasedFrom(path: string, original: string, current: string): Promise<boolean> {
  const text = await readFile(erasureRecordPath(path), 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  const record = JSON.parse(text) as Partial<ErasureRecord>;
  return record.original === original && (record.erased ?? []).includes(current);
}

/** A stored manifest that held the person, and what erasure did to it. */
export interface ManifestErasure {
  /** The manifest file (campaignManifestPath of its campaign). */
  path: string;
  /** Its campaign. */
  campaignId: string;
  /** The lines erased, by index: the campaign's ledger indexes, which a running campaign is told. */
  indexes: number[];
  /** The erased lines' workflow-id keys (searchKey, else subjectId): their pipelines' ids (subjectWorkflowId). */
  workflowKeys: string[];
}

/**
 * Erases a person from the stored manifests under `dir` (CAMPAIGN_DIR) of the campaigns
 * `ofCampaign` accepts (a manifest stored without the record of its campaign is no one's and is
 * left alone): each of their lines
 * becomes ERASED_SUBJECT, in place, so the campaign's ledger (indexed by line) stays aligned, and
 * summaries, results and campaigns that read the file afterwards skip them. The record beside the
 * file lets readers accept the changed file for the campaign's digest. Answers each manifest changed.
 */
export async function eraseFromCampaignManifests(
  dir: string,
  subjectId: string,
  ofCampaign: (campaignId: string) => boolean,
): Promise<ManifestErasure[]> {
  const root = resolve(dir);
  const names = await readdir(root).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const erasures: ManifestErasure[] = [];
  for (const name of names.filter((n) => n.endsWith('.subjects.jsonl'))) {
    const path = join(root, name);
    const owner = await readFile(campaignRecordPath(path), 'utf8')
      .then((t) => (JSON.parse(t) as Partial<CampaignRecord>).campaignId)
      .catch(() => undefined);
    // Only the campaigns `ofCampaign` accepts (one tenant's): another's line of the same id is another person.
    if (typeof owner !== 'string' || !ofCampaign(owner)) continue;
    const text = await readFile(path, 'utf8');
    const erasure: ManifestErasure = { path, campaignId: owner, indexes: [], workflowKeys: [] };
    let index = 0;
    const lines = text.split('\n').map((line) => {
      if (line.length === 0) return line;
      const json = JSON.parse(line) as { subjectId?: unknown; searchKey?: unknown };
      index++;
      if (json.subjectId !== subjectId) return line;
      erasure.indexes.push(index - 1);
      erasure.workflowKeys.push(typeof json.searchKey === 'string' ? json.searchKey : subjectId);
      return JSON.stringify(ERASED_SUBJECT);
    });
    if (erasure.indexes.length === 0) continue;
    const next = lines.join('\n');
    const digest = (t: string) => createHash('sha256').update(t).digest('hex');
    const previous = await readFile(erasureRecordPath(path), 'utf8')
      .then((t) => JSON.parse(t) as ErasureRecord)
      .catch((): ErasureRecord => ({ original: digest(text), erased: [] }));
    const record: ErasureRecord = { ...previous, erased: [...previous.erased, digest(next)] };
    // The record first: a reader between the two writes sees the earlier file, still accepted.
    await writeAtomically(erasureRecordPath(path), JSON.stringify(record));
    await writeAtomically(path, next);
    erasures.push(erasure);
  }
  return erasures;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, path);
}

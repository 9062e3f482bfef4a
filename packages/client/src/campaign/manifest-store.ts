import { createHash } from 'node:crypto';
import { text as streamText } from 'node:stream/consumers';
import {
  campaignSubjectSchema,
  ERASED_SUBJECT,
  isErased,
  type CampaignSubject,
  type ManifestEntry,
  type ManifestRef,
} from '../contracts/campaign/campaign';
import { AvatarPipelineError } from '../errors';
import type { BlobStore } from '../storage/blob-store';

/** The stored manifest is not where it should be, or not what the campaign started with. */
export class CampaignManifestError extends AvatarPipelineError {
  constructor(
    message: string,
    /** True when waiting cannot help (the manifest changed, or its reference is not one of this store's). */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** Every campaign's manifest lives under this prefix of the blob store. */
export const MANIFESTS_PREFIX = 'campaigns/';

/**
 * Which version of a campaign's subjects is current. The workflow holds the digest it started with
 * (`original`, in its history, which cannot change); erasure writes a new version without the
 * person and points `current` at it. Versions are named by their digest and never rewritten, so a
 * reader's cached copy of one stays valid.
 */
interface ManifestRecord {
  campaignId: string;
  original: string;
  current: string;
}

/**
 * Writes a campaign's validated subjects as JSONL into the blob store, under the campaign's own
 * prefix, so starters and workers need share nothing but the store. The workflow holds only the
 * reference (the record's key, the digest and the count); workers read pages of it, so a campaign
 * of any size never carries its manifest through workflow history. Writing the same subjects again
 * is a no-op; different subjects under a campaign id already used are refused.
 */
export async function storeCampaignManifest(
  store: BlobStore,
  campaignId: string,
  subjects: CampaignSubject[],
): Promise<ManifestRef> {
  const text = subjects.map((s) => JSON.stringify(s)).join('\n') + (subjects.length > 0 ? '\n' : '');
  const sha256 = digest(text);
  const key = recordKey(campaignId);
  const existing = await readRecord(store, key);
  if (existing !== undefined && existing.original !== sha256) {
    throw new CampaignManifestError(
      `campaign "${campaignId}" already has a different manifest; choose another campaign id`,
      true,
    );
  }
  // The record first, so that erasure finds every version written for the campaign; a reader
  // before the version lands is told to retry. A repeated start writes the version again unless
  // an erasure has moved the record on (it would bring the erased back).
  if (existing === undefined)
    await writeRecord(store, key, { campaignId, original: sha256, current: sha256 });
  if (existing === undefined || existing.current === sha256) {
    await store.put(versionKey(key, sha256), Buffer.from(text), 'application/x-ndjson');
  }
  return { key, sha256, total: subjects.length };
}

/** A campaign's prefix: its id made a key segment (letters, digits, . _ -) and a digest for uniqueness. */
function campaignPrefix(campaignId: string): string {
  const readable = campaignId
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[.]+/, '_')
    .slice(0, 80);
  return `${MANIFESTS_PREFIX}${readable}-${digest(campaignId).slice(0, 12)}/`;
}

const recordKey = (campaignId: string) => `${campaignPrefix(campaignId)}manifest.json`;
const versionKey = (record: string, sha256: string) =>
  `${record.slice(0, -'manifest.json'.length)}subjects-${sha256}.jsonl`;

interface ParsedManifest {
  /** The version these lines are: the record's `current` when read. */
  version: string;
  lines: string[];
  /** The subject ids of this version, computed when first asked. */
  subjectIds?: ReadonlySet<string>;
}

/**
 * The parsed current version of each recently read manifest, by store and record. One entry per
 * manifest, replaced when its record moves on: a version an erasure replaced (it names the person)
 * is not kept in memory beside its successor.
 */
const cache = new Map<string, ParsedManifest>();
const CACHE_ENTRIES = 8;

/**
 * Subjects [from, from + count) of a stored manifest, after checking it is the campaign's. An
 * erased subject keeps its place (the campaign's ledger is indexed by it) as ERASED_SUBJECT.
 */
export async function readCampaignSubjects(
  ref: ManifestRef,
  store: BlobStore,
  from: number,
  count: number,
): Promise<ManifestEntry[]> {
  const manifest = await openManifest(ref, store);
  return manifest.lines.slice(from, from + count).map((line, i) => subjectOf(ref, line, from + i));
}

/** The subjects at `indexes` of a stored manifest (undefined past its end), read once for all of them. */
export async function readCampaignSubjectsAt(
  ref: ManifestRef,
  store: BlobStore,
  indexes: number[],
): Promise<Array<ManifestEntry | undefined>> {
  const manifest = await openManifest(ref, store);
  return indexes.map((index) => {
    const line = manifest.lines[index];
    return line === undefined ? undefined : subjectOf(ref, line, index);
  });
}

function subjectOf(ref: ManifestRef, line: string, index: number): ManifestEntry {
  const json: unknown = JSON.parse(line);
  if (isErased(json)) return ERASED_SUBJECT;
  const parsed = campaignSubjectSchema.safeParse(json);
  if (!parsed.success) {
    throw new CampaignManifestError(
      `subject #${index} of the manifest ${ref.key} is not valid: ${parsed.error.message}`,
      true,
    );
  }
  return parsed.data;
}

/**
 * The ids of the subjects a stored manifest holds now: an erased person is not among them. What
 * shows a campaign's progress keeps only these ids (the campaign's own lists may predate erasure).
 */
export async function campaignSubjectIds(ref: ManifestRef, store: BlobStore): Promise<ReadonlySet<string>> {
  const manifest = await openManifest(ref, store);
  manifest.subjectIds ??= new Set(
    manifest.lines.flatMap((line) => {
      const json = JSON.parse(line) as { subjectId?: unknown };
      return typeof json.subjectId === 'string' ? [json.subjectId] : [];
    }),
  );
  return manifest.subjectIds;
}

async function openManifest(ref: ManifestRef, store: BlobStore): Promise<ParsedManifest> {
  if (
    typeof ref.key !== 'string' ||
    !ref.key.startsWith(MANIFESTS_PREFIX) ||
    !ref.key.endsWith('/manifest.json')
  ) {
    // A campaign started by a release that kept manifests in CAMPAIGN_DIR: finish those on it.
    throw new CampaignManifestError(
      `the campaign's manifest reference (${JSON.stringify(ref)}) is not a blob store key; campaigns started before manifests moved to the blob store must finish on the release that started them`,
      true,
    );
  }
  const unreadable = (what: string) =>
    new CampaignManifestError(
      `cannot read the campaign manifest ${ref.key} from the blob store at ${store.location} (${what}); do starters and workers use the same STORAGE_URL?`,
      false,
    );
  const cacheKey = `${store.location}\0${ref.key}`;
  // A version an erasure replaced between the two reads is gone: the record, read again, names the
  // next. Twice gone is left to the caller's retry.
  for (let attempt = 1; ; attempt++) {
    const record = await readRecord(store, ref.key);
    if (record === undefined) throw unreadable('no such object');
    if (record.original !== ref.sha256) {
      throw new CampaignManifestError(
        `the campaign manifest ${ref.key} changed after the campaign started`,
        true,
      );
    }
    const cached = cache.get(cacheKey);
    if (cached?.version === record.current) return cached;
    const text = await readText(store, versionKey(ref.key, record.current));
    if (text === undefined) {
      if (attempt < 2) continue;
      throw unreadable(`version ${record.current.slice(0, 12)} is gone`);
    }
    if (digest(text) !== record.current) {
      throw new CampaignManifestError(`the campaign manifest ${ref.key} does not match its digest`, true);
    }
    const lines = text.split('\n').filter((line) => line.length > 0);
    if (lines.length !== ref.total) {
      throw new CampaignManifestError(
        `the campaign manifest ${ref.key} holds ${lines.length} subjects, not ${ref.total}`,
        true,
      );
    }
    const parsed: ParsedManifest = { version: record.current, lines };
    cache.delete(cacheKey);
    cache.set(cacheKey, parsed);
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    return parsed;
  }
}

/** A stored manifest that held the person, and what erasure did to it. */
export interface ManifestErasure {
  /** Its campaign. */
  campaignId: string;
  /** The lines erased, by index: the campaign's ledger indexes, which a running campaign is told. */
  indexes: number[];
  /** The erased lines' workflow-id keys (searchKey, else subjectId): their pipelines' ids (subjectWorkflowId). */
  workflowKeys: string[];
}

/**
 * Erases a person from the stored manifests of the campaigns `ofCampaign` accepts (one tenant's:
 * another's line of the same id is another person): each of their lines becomes ERASED_SUBJECT in
 * a new version, so the campaign's ledger (indexed by line) stays aligned, and summaries, results
 * and campaigns that read it afterwards skip them. The record then points at the new version and
 * every other version of the campaign, which may name the person, is deleted: also those an
 * earlier erasure left when it stopped between moving the record and deleting, so repeating an
 * erasure completes it. Answers each manifest changed.
 *
 * Erasures through one store object run one at a time: two at once on one manifest would each
 * write a version from the same one, and the record keeps only one of them. The store offers no
 * conditional write, so erasures from two processes at once are not serialised (docs/security.md).
 */
export function eraseFromCampaignManifests(
  store: BlobStore,
  subjectId: string,
  ofCampaign: (campaignId: string) => boolean,
): Promise<ManifestErasure[]> {
  const previous = erasing.get(store) ?? Promise.resolve();
  const next = previous.then(() => eraseOneByOne(store, subjectId, ofCampaign));
  const settled = next.then(
    () => undefined,
    () => undefined,
  );
  erasing.set(store, settled);
  void settled.then(() => {
    if (erasing.get(store) === settled) erasing.delete(store);
  });
  return next;
}

/** The erasure each store is running, which the next one waits for. */
const erasing = new WeakMap<BlobStore, Promise<void>>();

async function eraseOneByOne(
  store: BlobStore,
  subjectId: string,
  ofCampaign: (campaignId: string) => boolean,
): Promise<ManifestErasure[]> {
  const keys = await store.listKeys(MANIFESTS_PREFIX);
  const erasures: ManifestErasure[] = [];
  for (const key of keys.filter((k) => k.endsWith('/manifest.json'))) {
    const record = await readRecord(store, key);
    if (record === undefined || !ofCampaign(record.campaignId)) continue;
    const erasure = await eraseFromManifest(store, key, record, subjectId);
    if (erasure) erasures.push(erasure);
  }
  return erasures;
}

async function eraseFromManifest(
  store: BlobStore,
  key: string,
  record: ManifestRecord,
  subjectId: string,
): Promise<ManifestErasure | undefined> {
  // Missing when the start that wrote the record stopped before the version: nothing to erase.
  const text = (await readText(store, versionKey(key, record.current))) ?? '';
  const erasure: ManifestErasure = { campaignId: record.campaignId, indexes: [], workflowKeys: [] };
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
  let current = record.current;
  if (erasure.indexes.length > 0) {
    const next = lines.join('\n');
    current = digest(next);
    await store.put(versionKey(key, current), Buffer.from(next), 'application/x-ndjson');
    await writeRecord(store, key, { ...record, current });
  }
  const folder = key.slice(0, -'manifest.json'.length);
  for (const stale of await store.listKeys(folder)) {
    if (VERSION_NAME.test(stale.slice(folder.length)) && stale !== versionKey(key, current)) {
      await store.delete(stale);
    }
  }
  return erasure.indexes.length > 0 ? erasure : undefined;
}

const VERSION_NAME = /^subjects-[0-9a-f]{64}\.jsonl$/;

async function readRecord(store: BlobStore, key: string): Promise<ManifestRecord | undefined> {
  const text = await readText(store, key);
  if (text === undefined) return undefined;
  const record = JSON.parse(text) as Partial<ManifestRecord>;
  if (
    typeof record.campaignId !== 'string' ||
    typeof record.original !== 'string' ||
    typeof record.current !== 'string'
  ) {
    throw new CampaignManifestError(
      `the campaign manifest record ${key} is not one this package wrote`,
      true,
    );
  }
  return record as ManifestRecord;
}

async function writeRecord(store: BlobStore, key: string, record: ManifestRecord): Promise<void> {
  await store.put(key, Buffer.from(JSON.stringify(record)), 'application/json');
}

async function readText(store: BlobStore, key: string): Promise<string | undefined> {
  const blob = await store.get(key);
  return blob === undefined ? undefined : streamText(blob.body);
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

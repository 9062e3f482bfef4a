import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, rename, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { campaignSubjectSchema, type CampaignSubject, type ManifestRef } from '../contracts/campaign';

/** The stored manifest is not where it should be, or not what the campaign started with. */
export class CampaignManifestError extends Error {
  constructor(
    message: string,
    /** True when waiting cannot help (the file changed or lies outside the campaign folder). */
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'CampaignManifestError';
  }
}

/**
 * Writes a campaign's validated subjects as JSONL under `dir` (CAMPAIGN_DIR), named after the
 * campaign. The workflow holds only the path, digest and count; workers read pages of it, so a
 * campaign of any size never carries its manifest through workflow history. Writing the same
 * subjects again is a no-op; different subjects under a campaign id already used are refused.
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
  const path = join(root, `${fileNameFor(campaignId)}.subjects.jsonl`);
  const existing = await readFile(path, 'utf8').catch(() => undefined);
  if (existing !== undefined) {
    if (createHash('sha256').update(existing).digest('hex') !== sha256) {
      throw new CampaignManifestError(
        `campaign "${campaignId}" already has a different manifest (${path}); choose another campaign id`,
        true,
      );
    }
  } else {
    const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, path);
  }
  return { path, sha256, total: subjects.length };
}

interface ParsedManifest {
  sha256: string;
  lines: string[];
}

const cache = new Map<string, ParsedManifest>();
const CACHE_ENTRIES = 8;

/** Subjects [from, from + count) of a stored manifest, after checking its place and digest. */
export async function readCampaignSubjects(
  ref: ManifestRef,
  dir: string,
  from: number,
  count: number,
): Promise<CampaignSubject[]> {
  const manifest = await openManifest(ref, dir);
  return manifest.lines.slice(from, from + count).map((line, i) => {
    const parsed = campaignSubjectSchema.safeParse(JSON.parse(line));
    if (!parsed.success) {
      throw new CampaignManifestError(
        `subject #${from + i} of ${ref.path} is not valid: ${parsed.error.message}`,
        true,
      );
    }
    return parsed.data;
  });
}

async function openManifest(ref: ManifestRef, dir: string): Promise<ParsedManifest> {
  const cached = cache.get(ref.path);
  if (cached && cached.sha256 === ref.sha256) return cached;
  const path = await insideDir(ref.path, dir);
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new CampaignManifestError(
      `cannot read the campaign manifest ${ref.path} (${err.code ?? err.message}); is CAMPAIGN_DIR shared by starters and workers?`,
      false,
    );
  });
  const sha256 = createHash('sha256').update(text).digest('hex');
  if (sha256 !== ref.sha256) {
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
  const parsed = { sha256, lines };
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

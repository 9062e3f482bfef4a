import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AvatarRef, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { detectImageFormat } from '@avatar-pipeline/client/provider/image-format';
import { readBlob, type BlobStore } from '../../src/storage';
import { renderGalleryHtml, type GalleryImage, type GallerySection } from './gallery-html';

export interface WriteGalleryOptions {
  result: PipelineResult;
  /** The gallery goes into `<outputDir>/<workflowId>/`. */
  outputDir: string;
  styleNames: ReadonlyMap<number, string>;
  temporalUiLink: string;
  namespace: string;
  providerUrl: string;
  /** Parallel downloads. Default 8. */
  concurrency?: number;
  /** The blob store archived avatars are read from; others (and all without it) come from the provider. */
  archive?: BlobStore;
}

export interface WrittenGallery {
  dir: string;
  /** The HTML page. */
  page: string;
  avatarCount: number;
}

const DOWNLOAD_TIMEOUT_MS = 15_000;
const MAX_AVATAR_BYTES = 20 * 1024 * 1024;

/**
 * Writes `index.html` (avatars grouped by style) and `result.json`, with every avatar image
 * downloaded beside them, so the page still shows everything once the provider is gone.
 */
export async function writeGallery(options: WriteGalleryOptions): Promise<WrittenGallery> {
  const dir = path.resolve(options.outputDir, safeName(options.result.workflowId));
  await mkdir(path.join(dir, 'images'), { recursive: true });
  const jobs = options.result.generations.flatMap((g) =>
    g.avatars.map((avatar) => ({ styleId: g.styleId, avatar })),
  );
  const saved = new Map<AvatarRef, GalleryImage>();
  await forEachLimited(jobs, options.concurrency ?? 8, async ({ styleId, avatar }) => {
    saved.set(avatar, await saveAvatar(avatar, styleId, dir, options.archive));
  });
  const sections: GallerySection[] = options.result.generations.map((g) => ({
    styleId: g.styleId,
    styleName: options.styleNames.get(g.styleId) ?? `Style ${g.styleId}`,
    status: g.status,
    ...(g.error ? { error: g.error } : {}),
    images: g.avatars.map((avatar) => saved.get(avatar)!),
  }));
  const page = path.join(dir, 'index.html');
  await writeFile(
    page,
    renderGalleryHtml({
      result: options.result,
      sections,
      temporalUiLink: options.temporalUiLink,
      namespace: options.namespace,
      generatedAt: new Date(),
      providerUrl: options.providerUrl,
    }),
  );
  await writeFile(path.join(dir, 'result.json'), `${JSON.stringify(options.result, null, 2)}\n`);
  return { dir, page, avatarCount: jobs.length };
}

async function saveAvatar(
  avatar: AvatarRef,
  styleId: number,
  dir: string,
  archive: BlobStore | undefined,
): Promise<GalleryImage> {
  const archived =
    archive && avatar.archiveKey ? await readBlob(archive, avatar.archiveKey, MAX_AVATAR_BYTES) : undefined;
  const bytes = archived ?? (await download(avatar));
  const format = detectImageFormat(bytes);
  if (format === undefined)
    throw new Error(`avatar ${avatar.avatarId} (${avatar.imageUrl}) is not a PNG or JPEG image`);
  const file = `images/${styleId}-${avatar.avatarId}.${format === 'png' ? 'png' : 'jpg'}`;
  await writeFile(path.join(dir, file), bytes);
  return { avatarId: avatar.avatarId, file, ...(format === 'png' ? pngSize(bytes) : {}) };
}

async function download(avatar: AvatarRef): Promise<Buffer> {
  const response = await fetch(avatar.imageUrl, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`downloading avatar ${avatar.avatarId} (${avatar.imageUrl}) answered ${response.status}`);
  }
  return Buffer.from(await response.arrayBuffer());
}

/** Width and height from a PNG's IHDR chunk, so the page lays out before the images load. */
function pngSize(bytes: Buffer): { width?: number; height?: number } {
  return bytes.length >= 24 ? { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) } : {};
}

/** Workflow ids may hold characters a directory name should not. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_');
}

async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(lanes);
}

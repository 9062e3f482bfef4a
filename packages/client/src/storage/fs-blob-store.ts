import { randomUUID } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { assertValidKey, assertValidPrefix, isValidKey } from './blob-keys';
import type { BlobInfo, BlobStore, StoredBlob } from './blob-store';
import { contentTypeOfKey } from './content-types';

/**
 * Objects as files under one directory, the key being the relative path. The default backend:
 * the demo and a single machine need nothing else. Workers on other machines only see these files
 * on a shared filesystem; deployments without one use the S3 backend.
 */
export class FsBlobStore implements BlobStore {
  readonly location: string;

  constructor(dir: string) {
    this.location = path.resolve(dir);
  }

  async put(key: string, body: Buffer, _contentType: string): Promise<BlobInfo> {
    const file = this.fileOf(key);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    // Written beside and renamed into place, so a reader never sees half an object.
    const partial = `${file}.${randomUUID()}.part`;
    try {
      await writeFile(partial, body, { mode: 0o600 });
      await rename(partial, file);
    } finally {
      await rm(partial, { force: true });
    }
    return { key, bytes: body.length, contentType: contentTypeOfKey(key) };
  }

  async get(key: string): Promise<StoredBlob | undefined> {
    // Opened before answering, so an object deleted in between reads as missing, not as a stream error.
    let handle: FileHandle;
    try {
      handle = await open(this.fileOf(key), 'r');
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      return undefined;
    }
    return {
      info: { key, bytes: stats.size, contentType: contentTypeOfKey(key) },
      body: handle.createReadStream(),
    };
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    try {
      const stats = await stat(this.fileOf(key));
      return stats.isFile() ? { key, bytes: stats.size, contentType: contentTypeOfKey(key) } : undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.fileOf(key);
    await rm(file, { force: true });
    await this.pruneEmptyParents(path.dirname(file));
  }

  async list(prefix: string): Promise<BlobInfo[]> {
    const found: BlobInfo[] = [];
    for (const key of await this.listKeys(prefix)) {
      // The key as found on disk: a file someone else named outside the key rules is still listed.
      const stats = await stat(path.join(this.location, ...key.split('/'))).catch(() => undefined);
      if (stats) found.push({ key, bytes: stats.size, contentType: contentTypeOfKey(key) });
    }
    return found;
  }

  async listKeys(prefix: string): Promise<string[]> {
    assertValidPrefix(prefix);
    // Only the directory the prefix names is walked, not the whole store.
    const dir = prefix === '' ? this.location : path.join(this.location, prefix);
    const found: string[] = [];
    await this.walk(dir, found);
    return found.sort();
  }

  signedUrl(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  referenceOf(key: string): string {
    return this.fileOf(key);
  }

  keyOf(reference: string): string | undefined {
    const relative = path.relative(this.location, reference);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    const key = relative.split(path.sep).join('/');
    return isValidKey(key) ? key : undefined;
  }

  close(): void {
    // Files hold no connections.
  }

  private fileOf(key: string): string {
    return path.join(this.location, ...assertValidKey(key).split('/'));
  }

  private async walk(dir: string, found: string[]): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err) || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw err;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await this.walk(full, found);
      else if (entry.isFile() && !entry.name.endsWith('.part')) {
        found.push(path.relative(this.location, full).split(path.sep).join('/'));
      }
    }
  }

  /** Empty directories left by deletes go too, up to the store's root, so an erased person leaves no trace. */
  private async pruneEmptyParents(dir: string): Promise<void> {
    let current = dir;
    while (current.startsWith(this.location + path.sep)) {
      try {
        await rmdir(current);
      } catch {
        return; // not empty (or already gone): stop here
      }
      current = path.dirname(current);
    }
  }
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

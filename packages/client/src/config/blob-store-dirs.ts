import { isAbsolute, relative, resolve } from 'node:path';
import { storageUrlSchema } from '../storage/storage-url';
import type { Env } from './env-schema';

/** A directory the blob store may keep files in, and the variable that names it. */
export interface BlobStoreDir {
  variable: 'BLOB_DIR' | 'STORAGE_URL';
  dir: string;
}

/**
 * The directories holding every tenant's uploads and avatars: BLOB_DIR (the API keeps it whatever
 * STORAGE_URL says) and STORAGE_URL when it is a directory. A bad STORAGE_URL is left to the
 * storage settings to report.
 */
export function blobStoreDirs(env: NodeJS.ProcessEnv, e: Pick<Env, 'BLOB_DIR'>, cwd: string): BlobStoreDir[] {
  const dirs: BlobStoreDir[] = [{ variable: 'BLOB_DIR', dir: resolve(cwd, e.BLOB_DIR) }];
  const url = env.STORAGE_URL?.trim();
  if (url) {
    const target = storageUrlSchema(cwd).safeParse(url);
    if (target.success && target.data.kind === 'fs')
      dirs.push({ variable: 'STORAGE_URL', dir: resolve(target.data.dir) });
  }
  return dirs;
}

/**
 * Why IMAGE_ROOTS may not be used with these blob store directories: a root holding the store (or
 * inside it) would let a caller name another tenant's stored files as selfies.
 */
export function overlapProblems(
  roots: string[],
  stores: BlobStoreDir[],
): { variable: string; reason: string }[] {
  const problems: { variable: string; reason: string }[] = [];
  for (const root of roots) {
    for (const { variable, dir } of stores) {
      if (contains(root, dir))
        problems.push({
          variable: 'IMAGE_ROOTS',
          reason: `the entry ${root} contains the blob store ${variable} (${dir}): keep uploads outside every image root`,
        });
      else if (contains(dir, root))
        problems.push({
          variable: 'IMAGE_ROOTS',
          reason: `the entry ${root} lies inside the blob store ${variable} (${dir}): keep uploads outside every image root`,
        });
    }
  }
  return problems;
}

/** Whether `inner` is `outer` or lies inside it. */
function contains(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

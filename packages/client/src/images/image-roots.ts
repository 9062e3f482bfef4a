import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { InputError } from '../errors';

/** Where selfie files may be read from (IMAGE_ROOTS) and where never (the blob store's directories). */
export interface ImageRoots {
  roots: string[];
  excluded?: string[];
}

/**
 * The real path of a selfie file when it lies within the allowed roots (IMAGE_ROOTS) and outside
 * the excluded directories; otherwise an InputError naming `field`, the same for a file outside
 * whether or not it exists.
 */
export async function checkImageFile(reference: string, policy: ImageRoots, field: string): Promise<string> {
  const found = await locateWithinRoots(reference, policy);
  if (found === 'outside')
    throw InputError.field(field, 'is outside the allowed image directories (IMAGE_ROOTS)');
  if (found === 'missing') throw InputError.field(field, `file does not exist (${reference})`);
  return found.real;
}

/**
 * Where `path` leads (symlinks resolved) when it lies within one of `access.roots` and within none
 * of `access.excluded`. Both are checked before the path is looked at, and again after its symlinks
 * are resolved: anything outside gets 'outside' whether it exists or not, so answers say nothing
 * about files elsewhere on the server. 'missing': inside a root, but nothing is there. `allowRoot`
 * accepts a root itself (a folder).
 */
export async function locateWithinRoots(
  path: string,
  access: ImageRoots,
  allowRoot = false,
): Promise<{ real: string } | 'outside' | 'missing'> {
  const requested = resolve(path);
  const [roots, excluded] = await Promise.all([bothForms(access.roots), bothForms(access.excluded ?? [])]);
  const within = (dirs: DirForms[], candidate: string, acceptDir: boolean) =>
    dirs.some((dir) => isWithin(dir.given, candidate, acceptDir) || isWithin(dir.real, candidate, acceptDir));
  const allowed = (candidate: string) =>
    within(roots, candidate, allowRoot) && !within(excluded, candidate, true);
  if (!allowed(requested)) return 'outside';
  let real: string;
  try {
    real = await realpath(requested);
  } catch {
    return 'missing';
  }
  return allowed(real) ? { real } : 'outside';
}

interface DirForms {
  given: string;
  real: string;
}

/** A directory as given and with its symlinks resolved: a path may be named through either. */
function bothForms(dirs: string[]): Promise<DirForms[]> {
  return Promise.all(
    dirs.map(async (dir) => ({ given: resolve(dir), real: await realpath(dir).catch(() => resolve(dir)) })),
  );
}

/** Whether `candidate` lies inside `dir` (or is `dir` itself, when `acceptDir`). */
function isWithin(dir: string, candidate: string, acceptDir: boolean): boolean {
  const rel = relative(dir, candidate);
  if (rel === '') return acceptDir;
  return !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

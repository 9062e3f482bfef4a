import { readdir, stat } from 'node:fs/promises';
import { extname, isAbsolute, join, resolve } from 'node:path';
import type { ImageAccessPolicy } from '../../images/image-access';
import { locateWithinRoots } from '@avatar-pipeline/client/images/image-roots';
import { imageFileProblem } from '@avatar-pipeline/client/images/image-file-problem';
import { DEFAULT_MAX_IMAGE_BYTES } from '@avatar-pipeline/client/provider/upload-image';

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png']);
const OUTSIDE_ROOTS = 'is outside the allowed image directories (IMAGE_ROOTS)';

export interface SelfieCheckOptions {
  /** Relative paths are taken from here (the manifest's folder); without it they are refused. */
  baseDir?: string;
  /** When given, files outside IMAGE_ROOTS and URLs on hosts outside IMAGE_URL_HOSTS are refused here already. */
  imageAccess?: ImageAccessPolicy;
  maxImageBytes?: number;
}

export interface SelfieProblem {
  /** Index of the entry in the row's selfies list. */
  entry: number;
  message: string;
}

export interface ExpandedSelfies {
  images: string[];
  problems: SelfieProblem[];
}

/**
 * Turns a row's selfie entries into image references the pipeline accepts: folders become their
 * .jpg/.jpeg/.png files (sorted by name), relative paths become absolute, and every file is
 * checked to exist and to be a non-empty JPEG or PNG within the size limit, so a campaign never
 * starts a pipeline that would fail on its first upload.
 */
export async function expandSelfies(
  entries: string[],
  options: SelfieCheckOptions,
): Promise<ExpandedSelfies> {
  const images: string[] = [];
  const problems: SelfieProblem[] = [];
  for (const [entry, reference] of entries.entries()) {
    const fail = (message: string) => problems.push({ entry, message });
    if (/^https?:\/\//i.test(reference)) {
      const problem = urlProblem(reference, options.imageAccess);
      if (problem) fail(problem);
      else images.push(reference);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(reference) && !/^[a-z]:[\\/]/i.test(reference)) {
      fail(`"${reference}" must be a file, a folder or an http(s) URL`);
      continue;
    }
    if (!isAbsolute(reference) && !options.baseDir) {
      fail(`"${reference}" must be an absolute path or an http(s) URL`);
      continue;
    }
    const path = resolve(options.baseDir ?? '/', reference);
    // The roots first, before anything is listed or read: outside them, one answer whatever is there.
    if (options.imageAccess && (await locateWithinRoots(path, options.imageAccess, true)) === 'outside') {
      fail(`${reference} ${OUTSIDE_ROOTS}`);
      continue;
    }
    const info = await stat(path).catch(() => undefined);
    if (!info) {
      fail(`${reference} does not exist`);
      continue;
    }
    const files = info.isDirectory() ? await imageFilesIn(path) : [path];
    if (info.isDirectory() && files.length === 0) {
      fail(`folder ${reference} holds no .jpg, .jpeg or .png files`);
      continue;
    }
    for (const file of files) {
      const problem = await fileProblem(file, options);
      if (problem) fail(problem);
      else images.push(file);
    }
  }
  return { images, problems };
}

async function imageFilesIn(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((name) => IMAGE_EXTENSIONS.has(extname(name).toLowerCase()))
    .sort()
    .map((name) => join(dir, name));
}

/** A file in a listed folder may still be a symlink leading out of the roots: checked before it is read. */
async function fileProblem(path: string, options: SelfieCheckOptions): Promise<string | undefined> {
  if (options.imageAccess && (await locateWithinRoots(path, options.imageAccess)) === 'outside') {
    return `${path} ${OUTSIDE_ROOTS}`;
  }
  const problem = await imageFileProblem(path, options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES);
  return problem ? `${path} ${problem}` : undefined;
}

function urlProblem(reference: string, policy: ImageAccessPolicy | undefined): string | undefined {
  if (!URL.canParse(reference)) return `"${reference}" is not a valid URL`;
  const url = new URL(reference);
  if (url.username || url.password) return `${url.origin} must not carry credentials in the URL`;
  if (!policy) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!policy.urlHosts.map((h) => h.toLowerCase()).includes(host))
    return `host "${host}" is not in the allowed image hosts (IMAGE_URL_HOSTS)`;
  return undefined;
}

import { open, readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { InvalidInputError } from '../provider/errors';
import { detectImageFormat } from '../provider/image-format';
import { DEFAULT_MAX_IMAGE_BYTES } from '../provider/upload-image';

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png']);

/**
 * Turns `--images` arguments (directories or files) into absolute file paths, checking each is a
 * real JPEG/PNG within the size limit, so a bad selfie is refused before a pipeline starts.
 */
export async function resolveImagePaths(args: string[], cwd: string = process.cwd()): Promise<string[]> {
  const files: string[] = [];
  for (const arg of args.flatMap((a) => a.split(',')).filter((a) => a.length > 0)) {
    const path = resolve(cwd, arg);
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new InvalidInputError('images', `${arg} does not exist`);
    if (info.isDirectory()) {
      const entries = (await readdir(path))
        .filter((name) => IMAGE_EXTENSIONS.has(extname(name).toLowerCase()))
        .sort();
      if (entries.length === 0)
        throw new InvalidInputError('images', `directory ${arg} holds no .jpg, .jpeg or .png files`);
      files.push(...entries.map((name) => join(path, name)));
    } else {
      files.push(path);
    }
  }
  if (files.length === 0) throw new InvalidInputError('images', 'must name at least one selfie');
  for (const [index, file] of files.entries()) await checkImageFile(file, `images[${index}] (${file})`);
  return files;
}

async function checkImageFile(path: string, field: string): Promise<void> {
  const info = await stat(path);
  if (!info.isFile()) throw new InvalidInputError(field, 'is not a regular file');
  if (info.size === 0) throw new InvalidInputError(field, 'is empty');
  if (info.size > DEFAULT_MAX_IMAGE_BYTES) {
    throw new InvalidInputError(
      field,
      `is ${info.size} bytes, more than the limit of ${DEFAULT_MAX_IMAGE_BYTES} bytes`,
    );
  }
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(8);
    await handle.read(head, 0, 8, 0);
    if (detectImageFormat(head) === undefined)
      throw new InvalidInputError(field, 'is not a JPEG or PNG image');
  } finally {
    await handle.close();
  }
}

import { readFile, stat } from 'node:fs/promises';
import { DEFAULT_MAX_IMAGE_BYTES } from '../provider/upload-image';
import { imageProblem } from './image-structure';

/**
 * Why the selfie file at `path` would be refused by the workers (missing, not a regular file,
 * empty, over `maxBytes`, not a whole JPEG or PNG), or undefined when it is fine. Starters call it
 * before starting anything, so a bad file costs an error naming it instead of a failed run.
 */
export async function imageFileProblem(
  path: string,
  maxBytes: number = DEFAULT_MAX_IMAGE_BYTES,
): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return 'does not exist';
  if (!info.isFile()) return 'is not a regular file';
  if (info.size === 0) return 'is empty';
  if (info.size > maxBytes) return `is ${info.size} bytes, more than the limit of ${maxBytes} bytes`;
  return imageProblem(await readFile(path));
}

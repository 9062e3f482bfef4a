import { isAbsolute } from 'node:path';
import { InputError, type InputIssue } from '../errors';
import { checkImageFile } from './image-roots';
import { imageFileProblem } from './image-file-problem';
import { isStoredReference } from './stored-reference';

/**
 * Refuses, before a run is started, every selfie given as a file path that the workers would
 * refuse: missing, not a whole JPEG or PNG within the size limit, or (with `roots`, the starter's
 * IMAGE_ROOTS) outside the allowed directories. One InputError names every bad `images.N`. URLs
 * and stored references are left to the workers' selfie check, which runs before the run's first
 * provider write.
 */
export async function checkSelfieFiles(images: readonly string[], roots?: string[]): Promise<void> {
  const issues: InputIssue[] = [];
  for (const [index, reference] of images.entries()) {
    if (/^https?:\/\//i.test(reference) || isStoredReference(reference) || !isAbsolute(reference)) continue;
    const path = `images.${index}`;
    try {
      if (roots) await checkImageFile(reference, { roots }, path);
      const problem = await imageFileProblem(reference);
      if (problem) issues.push({ path, message: problem });
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      issues.push(...err.issues);
    }
  }
  if (issues.length > 0) throw new InputError(issues);
}

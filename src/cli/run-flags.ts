import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { imageRootsFromEnv, resolveImagePaths } from './image-paths';
import { InputError } from '@avatar-pipeline/client/errors';

/**
 * The flags `run`, `train` and `generate` share, read into request fields, and the way their
 * results are printed. A bad value throws an InputError naming the flag (exit code 2).
 */

/** Which flag a request field came from, so a bad value names what the user typed. */
const FLAG_OF_FIELD: Record<string, string> = {
  images: '--images',
  styles: '--styles',
  gender: '--gender',
  mainImageIndex: '--main-image',
  subjectId: '--subject',
  modelId: '--model',
};

/** The same refusal with each field renamed to the flag it came from. */
export function withFlagNames(err: InputError): InputError {
  return new InputError(
    err.issues.map((issue) => {
      const [field = '', ...rest] = issue.path.split('.');
      const flag = FLAG_OF_FIELD[field];
      return flag ? { path: [flag, ...rest].join('.'), message: issue.message } : issue;
    }),
  );
}

/** --images: paths (or globs) resolved inside IMAGE_ROOTS when it is set. */
export async function imagesFlag(paths: string[]): Promise<string[]> {
  const roots = imageRootsFromEnv();
  return resolveImagePaths(paths, roots ? { roots } : {});
}

/** --styles: comma-separated style ids. */
export function stylesFlag(value: string): number[] {
  return value.split(',').map((item) => {
    const trimmed = item.trim();
    if (!/^\d+$/.test(trimmed)) {
      throw InputError.field('--styles', `"${trimmed}" is not a style id (a whole number)`);
    }
    return Number(trimmed);
  });
}

/** --gender: 1 or 2, as the provider counts. */
export function genderFlag(value: string): 1 | 2 {
  if (!/^[12]$/.test(value.trim())) {
    throw InputError.field('--gender', `"${value}" must be 1 (woman) or 2 (man)`);
  }
  return Number(value) as 1 | 2;
}

/** --main-image: a position counted from 1, as people count; the request counts from 0. */
export function mainImageIndexFlag(value: string): number {
  const trimmed = value.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1) {
    throw InputError.field('--main-image', `"${value}" must be a position from 1`);
  }
  return Number(trimmed) - 1;
}

/**
 * A finished pipeline or generation, for people: the model, then each style with its avatars. An
 * avatar that failed its checks is marked so, with the reasons; a style ordered again says how often.
 */
export function describeResult(result: PipelineResult): string {
  const lines = [`${result.workflowId}: model ${result.modelId}, ${result.status}`];
  for (const g of result.generations) {
    const orders = g.attempts !== undefined && g.attempts > 1 ? `, ${g.attempts} orders` : '';
    lines.push(
      `  style ${g.styleId}: ${g.status}, ${g.avatars.length} avatars${orders}${g.error ? ` (${g.error})` : ''}`,
    );
    for (const a of g.avatars) {
      const failed = a.check?.passed === false ? `  FAILED CHECKS: ${a.check.reasons.join('; ')}` : '';
      lines.push(`    ${a.imageUrl}${failed}`);
    }
  }
  return lines.join('\n');
}

import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { envSchema } from '@avatar-pipeline/client/config/env-schema';
import { resolveImageReference } from '../images/image-access';
import { imageFileProblem } from '@avatar-pipeline/client/images/image-file-problem';
import { InputError } from '@avatar-pipeline/client/errors';

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png']);

const FLAG = '--images';

/**
 * Turns `--images` arguments (directories or files) into absolute file paths, checking each is a
 * whole JPEG/PNG within the size limit, so a bad selfie is refused before a pipeline starts. With
 * `roots` (IMAGE_ROOTS, when set where the command runs), files outside them are refused as well,
 * as the workers would refuse them; without it the workers' own IMAGE_ROOTS have the last word.
 */
export async function resolveImagePaths(
  args: string[],
  options: { cwd?: string; roots?: string[] } = {},
): Promise<string[]> {
  const cwd = options.cwd ?? process.cwd();
  const files: string[] = [];
  for (const arg of args.flatMap((a) => a.split(',')).filter((a) => a.length > 0)) {
    const path = resolve(cwd, arg);
    const info = await stat(path).catch(() => undefined);
    if (!info) throw InputError.field(FLAG, `${arg} does not exist`);
    if (info.isDirectory()) {
      const entries = (await readdir(path))
        .filter((name) => IMAGE_EXTENSIONS.has(extname(name).toLowerCase()))
        .sort();
      if (entries.length === 0)
        throw InputError.field(FLAG, `directory ${arg} holds no .jpg, .jpeg or .png files`);
      files.push(...entries.map((name) => join(path, name)));
    } else {
      files.push(path);
    }
  }
  if (files.length === 0) throw InputError.field(FLAG, 'must name at least one selfie');
  for (const [index, file] of files.entries()) {
    const field = `${FLAG}[${index}] (${file})`;
    if (options.roots) await resolveImageReference(file, { roots: options.roots, urlHosts: [] }, field);
    const problem = await imageFileProblem(file);
    if (problem) throw InputError.field(field, problem);
  }
  return files;
}

/** IMAGE_ROOTS from the environment (absolute), or undefined when it is not set. */
export function imageRootsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string[] | undefined {
  const parsed = envSchema.shape.IMAGE_ROOTS.safeParse(env.IMAGE_ROOTS);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => ({ variable: 'IMAGE_ROOTS', reason: i.message })));
  }
  return parsed.data?.map((root) => resolve(cwd, root));
}

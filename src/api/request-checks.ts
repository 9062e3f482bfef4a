import { CallbackTargetError, checkCallbackTarget } from '../callbacks/callback-target';
import type { AppConfig } from '../config/load-config';
import type { PipelineInput } from '@avatar-pipeline/client/contracts/pipeline-input';
import { resolveImageReference, type ImageAccessPolicy } from '../images/image-access';
import { imageFileProblem } from '@avatar-pipeline/client/images/image-file-problem';
import { ApiError, type ApiIssue } from './api-error';
import { InputError } from '@avatar-pipeline/client/errors';

/**
 * Checks the schema cannot make, done before anything starts so a caller hears about them as a
 * 422 instead of as a failed run: the callback can be signed and may be called, every style is
 * one the provider offers (when it can be asked), and every image reference is one the workers may
 * read (the API applies the same IMAGE_ROOTS and IMAGE_URL_HOSTS), a referenced file being a whole
 * JPEG or PNG within the workers' size limit.
 */
export async function checkRequest(
  input: Pick<PipelineInput, 'images' | 'styles' | 'callbackUrl'>,
  options: {
    callbacks: AppConfig['callbacks'];
    /** Only for references given by the caller; uploaded selfies are the API's own files. */
    imageAccess?: ImageAccessPolicy;
    /** The provider's styles, or undefined when they cannot be had (the styles go unchecked). */
    offeredStyles?: () => Promise<ReadonlyArray<{ id: number }> | undefined>;
  },
): Promise<void> {
  const issues: ApiIssue[] = [];
  const offered = (await options.offeredStyles?.())?.map((style) => style.id);
  if (offered) {
    input.styles.forEach((style, index) => {
      if (!offered.includes(style)) {
        const list = [...offered].sort((a, b) => a - b).join(', ');
        issues.push({
          path: `styles.${index}`,
          message: `style ${style} is not offered by the provider (offered: ${list})`,
        });
      }
    });
  }
  if (input.callbackUrl !== undefined) {
    if (!options.callbacks.signingSecret) {
      issues.push({
        path: 'callbackUrl',
        message: 'callbacks are disabled on this server (CALLBACK_SIGNING_SECRET is not set)',
      });
    } else {
      try {
        await checkCallbackTarget(input.callbackUrl, options.callbacks);
      } catch (err) {
        if (!(err instanceof CallbackTargetError)) throw err;
        issues.push({ path: 'callbackUrl', message: err.reason });
      }
    }
  }
  if (options.imageAccess) {
    const policy = options.imageAccess;
    await Promise.all(
      input.images.map(async (reference, index) => {
        try {
          const resolved = await resolveImageReference(reference, policy, `images.${index}`);
          const problem = resolved.kind === 'file' ? await imageFileProblem(resolved.path) : undefined;
          if (problem) issues.push({ path: `images.${index}`, message: problem });
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          for (const issue of err.issues) issues.push({ path: `images.${index}`, message: issue.message });
        }
      }),
    );
  }
  if (issues.length > 0) throw ApiError.invalid(issues.sort((a, b) => (a.path < b.path ? -1 : 1)));
}

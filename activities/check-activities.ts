import { Context } from '@temporalio/activity';
import { InputError, type InputIssue } from '@avatar-pipeline/client/errors';
import { runOfSelfieCheck, type SelfieCheckReport } from '@avatar-pipeline/client/contracts/quality-checks';
import { decodeImage } from '../src/images/decode-image';
import type { ImageAccessPolicy } from '../src/images/image-access';
import { readImage } from '../src/images/read-image';
import { loadFaceModels, type FaceModels } from '../src/quality/face-models';
import { differenceHash, regionMeasures } from '../src/quality/image-measures';
import { selfieIssues, type SelfieReading, type SelfieThresholds } from '../src/quality/selfie-verdicts';

export interface CheckActivityDependencies {
  imageAccess: ImageAccessPolicy;
  thresholds: SelfieThresholds;
  /** The face models; loaded at the first check by default. */
  faceModels?: () => Promise<FaceModels>;
}

/**
 * The quality checks, on the checks task queue: CPU-bound model inference, kept apart from the
 * provider queue so check workers scale on their own. Each check reads, decides and answers: it
 * writes nothing, so a retried attempt is the same check again.
 */
export function createCheckActivities(deps: CheckActivityDependencies) {
  const models = deps.faceModels ?? loadFaceModels;
  return {
    /**
     * Reads every selfie as the run will and answers what it refuses, each on its `images.N`: no face
     * or several, a face too small, blurred, badly lit, a near-duplicate, another person.
     */
    async checkSelfieQuality(input: { images: string[] }): Promise<SelfieCheckReport> {
      const context = Context.current();
      const run = context.info.workflowExecution;
      if (run === undefined)
        throw new Error('Selfies are checked only for a workflow run, whose uploads they are');
      const faces = await models();
      const issues: InputIssue[] = [];
      const readings: (SelfieReading | undefined)[] = [];
      for (const [index, reference] of input.images.entries()) {
        const field = `images.${index}`;
        readings.push(undefined);
        let bytes: Buffer;
        try {
          bytes = await readImage(reference, deps.imageAccess, {
            field,
            signal: context.cancellationSignal,
            uploadsOf: runOfSelfieCheck(run.workflowId),
          });
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          issues.push(...err.issues);
          continue;
        }
        const image = decodeImage(bytes);
        if (image === null) {
          issues.push({ path: field, message: 'is not a whole JPEG or PNG image' });
          continue;
        }
        const found = await faces.findFaces(image);
        const face = found.length === 1 ? found[0]!.box : undefined;
        readings[index] = {
          width: image.width,
          height: image.height,
          faces: found,
          ...(face ? { face: regionMeasures(image, face) } : {}),
          hash: differenceHash(image),
        };
        context.heartbeat(index);
      }
      // What could not be read, then what the verdicts say: answered in selfie order.
      issues.push(...selfieIssues(readings, deps.thresholds));
      return { issues: issues.sort((a, b) => fieldIndex(a) - fieldIndex(b)) };
    },
  };
}

export type CheckActivities = ReturnType<typeof createCheckActivities>;

function fieldIndex(issue: InputIssue): number {
  return Number(issue.path.split('.')[1] ?? 0);
}

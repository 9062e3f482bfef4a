import { Context } from '@temporalio/activity';
import { InputError, type InputIssue } from '@avatar-pipeline/client/errors';
import {
  runOfSelfieCheck,
  type AvatarCheck,
  type SelfieCheckReport,
} from '@avatar-pipeline/client/contracts/quality-checks';
import type { AvatarRef } from '@avatar-pipeline/client/contracts/pipeline-state';
import { decodeImage } from '../src/images/decode-image';
import type { ImageAccessPolicy } from '../src/images/image-access';
import { readImage } from '../src/images/read-image';
import type { AddressRules } from '../src/outbound/checked-fetch';
import { readBlob } from '@avatar-pipeline/client/storage/read-blob';
import { avatarVerdict, type AvatarThresholds } from '../src/quality/avatar-verdicts';
import { loadContentModel, type ContentModel } from '../src/quality/content-model';
import { loadFaceModels, type FaceModels } from '../src/quality/face-models';
import { differenceHash, regionMeasures } from '../src/quality/image-measures';
import {
  personDescriptor,
  selfieIssues,
  type SelfieReading,
  type SelfieThresholds,
} from '../src/quality/selfie-verdicts';
import {
  AvatarRejectedError,
  AvatarSourceGoneError,
  DEFAULT_AVATAR_ARCHIVE_LIMITS,
  downloadAvatar,
  faceKey,
  ownerPrefix,
  type BlobStore,
} from '../src/storage';

export interface CheckActivityDependencies {
  imageAccess: ImageAccessPolicy;
  thresholds: SelfieThresholds;
  avatarThresholds: AvatarThresholds;
  /** Where the person's face is recorded, and archived avatars are read from. */
  store: BlobStore;
  /** Where avatar URLs may lead (avatarAddressRules), as for the copies into the store. */
  avatarRules: AddressRules;
  /** The face models; loaded at the first check by default. */
  faceModels?: () => Promise<FaceModels>;
  /** The NSFW classifier; loaded at the first avatar check by default. */
  contentModel?: () => Promise<ContentModel>;
}

/** Whose face: a run's tenant, and the run (or its subject) that trained the model. */
export interface FaceOwnerInput {
  tenant: string;
  pipelineId: string;
  subjectId?: string;
}

/** A recorded face is 128 numbers in JSON: a few kilobytes. */
const MAX_FACE_BYTES = 64 * 1024;

/** What is kept of a person's face: the mean descriptor of the selfies that show them. */
interface RecordedFace {
  modelId: number;
  descriptor: number[];
  selfies: number;
}

/**
 * The quality checks, on the checks task queue: CPU-bound model inference, kept apart from the
 * provider queue so check workers scale on their own. Each check reads, decides and answers: it
 * writes nothing, so a retried attempt is the same check again.
 */
export function createCheckActivities(deps: CheckActivityDependencies) {
  const models = deps.faceModels ?? loadFaceModels;
  const content = deps.contentModel ?? loadContentModel;
  const faceOf = async (owner: FaceOwnerInput | undefined, modelId: number) => {
    if (owner === undefined) return undefined;
    const stored = await readBlob(deps.store, faceKey(ownerPrefix(owner), modelId), MAX_FACE_BYTES);
    return stored === undefined ? undefined : (JSON.parse(stored.toString('utf8')) as RecordedFace);
  };
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

    /**
     * Records the person's face from the selfies a model is trained on (the mean descriptor of the
     * faces of the person most of them show), where the checks of the model's avatars will find it,
     * under the training run's owner. Writing it again writes the same object.
     */
    async recordFace(input: {
      owner: FaceOwnerInput;
      modelId: number;
      images: string[];
    }): Promise<{ recorded: boolean }> {
      const context = Context.current();
      const run = context.info.workflowExecution;
      if (run === undefined)
        throw new Error('A face is recorded only for a workflow run, whose selfies they are');
      const faces = await models();
      const readings: Pick<SelfieReading, 'faces'>[] = [];
      for (const [index, reference] of input.images.entries()) {
        const bytes = await readImage(reference, deps.imageAccess, {
          field: `images.${index}`,
          signal: context.cancellationSignal,
          uploadsOf: run.workflowId,
        });
        const image = decodeImage(bytes);
        readings.push({ faces: image === null ? [] : await faces.findFaces(image) });
        context.heartbeat(index);
      }
      const descriptor = personDescriptor(readings, deps.thresholds.faceMatchMaxDistance);
      if (descriptor === undefined) return { recorded: false };
      const face: RecordedFace = { modelId: input.modelId, descriptor, selfies: input.images.length };
      await deps.store.put(
        faceKey(ownerPrefix(input.owner), input.modelId),
        Buffer.from(JSON.stringify(face)),
        'application/json',
      );
      return { recorded: true };
    },

    /**
     * Each avatar's verdict (avatarVerdict): its face compared with the person's recorded face, and
     * the NSFW classifier's. Reads the archived copy when there is one, else the provider's URL (as
     * a copy would). An avatar the provider no longer serves, or serves wrongly, fails with that
     * reason; other read errors fail the attempt, to be retried. Writes nothing.
     */
    async checkAvatars(input: {
      face?: FaceOwnerInput;
      modelId: number;
      avatars: AvatarRef[];
    }): Promise<{ checks: AvatarCheck[] }> {
      const context = Context.current();
      const [faces, classifier, person] = await Promise.all([
        models(),
        content(),
        faceOf(input.face, input.modelId),
      ]);
      const checks: AvatarCheck[] = [];
      for (const avatar of input.avatars) {
        const bytes = await readAvatar(avatar, deps, context.cancellationSignal);
        const image = typeof bytes === 'string' ? null : decodeImage(bytes);
        if (image === null) {
          const reason = typeof bytes === 'string' ? bytes : 'is not a whole PNG or JPEG image';
          checks.push({ passed: false, reasons: [reason] });
        } else {
          const reading = { faces: await faces.findFaces(image), content: await classifier.classify(image) };
          checks.push(avatarVerdict(reading, person?.descriptor, deps.avatarThresholds));
        }
        context.heartbeat(checks.length);
      }
      return { checks };
    },
  };
}

/** The avatar's bytes, or why they cannot be had for good. */
async function readAvatar(
  avatar: AvatarRef,
  deps: CheckActivityDependencies,
  signal: AbortSignal,
): Promise<Buffer | string> {
  if (avatar.archiveKey !== undefined) {
    const stored = await readBlob(deps.store, avatar.archiveKey, DEFAULT_AVATAR_ARCHIVE_LIMITS.maxBytes);
    if (stored !== undefined) return stored;
  }
  try {
    return await downloadAvatar(avatar.imageUrl, deps.avatarRules, undefined, signal);
  } catch (err) {
    if (err instanceof AvatarSourceGoneError || err instanceof AvatarRejectedError) {
      return `could not be read: ${err.message}`;
    }
    throw err;
  }
}

export type CheckActivities = ReturnType<typeof createCheckActivities>;

function fieldIndex(issue: InputIssue): number {
  return Number(issue.path.split('.')[1] ?? 0);
}

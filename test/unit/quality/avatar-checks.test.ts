import { MockActivityEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AvatarCheck } from '@avatar-pipeline/client/contracts/quality-checks';
import type { AvatarRef } from '@avatar-pipeline/client/contracts/pipeline-state';
import { faceKey, ownerPrefix } from '@avatar-pipeline/client/storage/blob-keys';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import { createCheckActivities, type FaceOwnerInput } from '../../../activities/check-activities';
import { findPackageRoot } from '../../../src/config/package-root';
import { sampleSelfieFiles, sampleSelfiesDir } from '../../../src/samples/sample-selfies';
import { AvatarRenderer, type SourcePicture } from '../../../src/simulator/images/avatar-renderer';
import { styleTreatmentSchema, type StyleTreatment } from '../../../src/simulator/style-catalog';
import { temporaryDirectory } from '../../helpers/temp-dir';

/**
 * The avatar checks with the real models: the face recorded from the sample selfies, then avatars
 * drawn as the simulator draws them (the person in several styles, another real person, a pattern
 * with no face) and the picture the NSFW classifier flags (samples/avatars/README.md), each judged.
 */
jest.setTimeout(180_000);

const SAMPLES = join(findPackageRoot(), 'samples');
const OWNER: FaceOwnerInput = { tenant: 'default', pipelineId: 'default.avatar-pipeline-check-test' };
const MODEL_ID = 4101;

describe('avatar checks on real faces', () => {
  const dir = temporaryDirectory('avatar-checks-');
  const store = new FsBlobStore(join(dir, 'store'));
  const activities = createCheckActivities({
    imageAccess: { roots: [sampleSelfiesDir()], urlHosts: [] },
    thresholds: { faceMatchMaxDistance: 0.55, faceMinSize: 0.15, minSharpness: 40, duplicateMaxBits: 6 },
    avatarThresholds: { faceMatchMaxDistance: 0.55, unsafeMinScore: 0.6 },
    store,
    avatarRules: { trustedOrigins: [], trustedHosts: [] },
  });
  const env = new MockActivityEnvironment({
    workflowExecution: { workflowId: OWNER.pipelineId, runId: 'r1' },
  });
  const renderer = new AvatarRenderer();
  const selfie: SourcePicture = {
    key: 'selfie',
    bytes: readFileSync(sampleSelfieFiles()[0]!),
    format: 'png',
  };
  const anotherPerson: SourcePicture = {
    key: 'another',
    bytes: readFileSync(join(SAMPLES, 'avatars', 'another-person.jpg')),
    format: 'jpeg',
  };

  /** Stores an avatar as an archived copy and answers its reference. */
  async function archived(avatarId: number, png: Buffer): Promise<AvatarRef> {
    const key = `${ownerPrefix(OWNER)}avatars/${MODEL_ID}/1/${avatarId}.png`;
    await store.put(key, png, 'image/png');
    return { avatarId, imageUrl: `http://provider.invalid/images/1/${avatarId}.png`, archiveKey: key };
  }

  function drawn(picture: SourcePicture | undefined, treatment: StyleTreatment, variation: number): Buffer {
    return renderer.render({ picture, patternSeed: 9, treatment, variation, size: 256, thumbnail: false });
  }

  async function check(face: FaceOwnerInput | undefined, avatars: AvatarRef[]): Promise<AvatarCheck[]> {
    const input = { ...(face ? { face } : {}), modelId: MODEL_ID, avatars };
    return ((await env.run(activities.checkAvatars, input)) as { checks: AvatarCheck[] }).checks;
  }

  beforeAll(async () => {
    const recorded = await env.run(activities.recordFace, {
      owner: OWNER,
      modelId: MODEL_ID,
      images: sampleSelfieFiles(),
    });
    expect(recorded).toEqual({ recorded: true });
  });

  it("records the person's face (a descriptor, no picture) under the training run's owner", async () => {
    const stored = await store.get(faceKey(ownerPrefix(OWNER), MODEL_ID));
    expect(stored).toBeDefined();
    stored?.body.destroy();
    expect(stored?.info.bytes).toBeLessThan(8_000);
  });

  it('passes the person in every style the simulator draws', async () => {
    const treatments = styleTreatmentSchema.options;
    const avatars = await Promise.all(treatments.map((t, i) => archived(100 + i, drawn(selfie, t, i))));
    const verdicts = await check(OWNER, avatars);
    expect(verdicts).toEqual(treatments.map(() => ({ passed: true, reasons: [] })));
  });

  it('fails another person, no face and a flagged picture, each with its reason', async () => {
    const avatars = [
      await archived(201, drawn(anotherPerson, 'sepia', 0)),
      await archived(202, drawn(undefined, 'pastel', 0)),
      await archived(203, readFileSync(join(SAMPLES, 'avatars', 'flagged-unsafe.png'))),
    ];
    const [other, noFace, unsafe] = await check(OWNER, avatars);
    expect(other?.passed).toBe(false);
    expect(other?.reasons).toEqual([
      expect.stringMatching(/^shows another person \(face distance 0\.\d\d; the person is within 0\.55\)$/),
    ]);
    expect(noFace).toEqual({ passed: false, reasons: ['shows no face'] });
    expect(unsafe?.passed).toBe(false);
    expect(unsafe?.reasons).toEqual([expect.stringMatching(/^is flagged as unsafe \(Porn 0\.\d\d/)]);
  });

  it('says the person was not compared when no face was recorded for the model', async () => {
    const [verdict] = await check({ tenant: 'default', pipelineId: 'default.another-run' }, [
      await archived(301, drawn(anotherPerson, 'noir', 0)),
    ]);
    expect(verdict).toEqual({
      passed: true,
      reasons: [],
      notChecked: ['same person: no face of the person was recorded for this model'],
    });
  });
});

import { MockActivityEnvironment } from '@temporalio/testing';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import type { SelfieCheckReport } from '@avatar-pipeline/client/contracts/quality-checks';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import { createCheckActivities } from '../../../activities/check-activities';
import { sampleSelfieFiles, sampleSelfiesDir } from '../../../src/samples/sample-selfies';
import { blur, jpegBytes, portrait, writeFaceSelfies } from '../../helpers/face-selfies';

/**
 * The selfie checks with the real models, on real photographs (test/fixtures/faces): each reason to
 * refuse a selfie, and a good set of one person passing.
 */
jest.setTimeout(120_000);

const THRESHOLDS = { faceMatchMaxDistance: 0.55, faceMinSize: 0.15, minSharpness: 40, duplicateMaxBits: 6 };

describe('selfie checks on real faces', () => {
  let selfies: Awaited<ReturnType<typeof writeFaceSelfies>>;
  let check: (images: string[]) => Promise<{ path: string; message: string }[]>;

  beforeAll(async () => {
    selfies = await writeFaceSelfies();
    const activities = createCheckActivities({
      imageAccess: { roots: [selfies.dir, sampleSelfiesDir()], urlHosts: [] },
      thresholds: THRESHOLDS,
      avatarThresholds: { faceMatchMaxDistance: 0.55, unsafeMinScore: 0.6 },
      store: new FsBlobStore(join(selfies.dir, 'store')),
      avatarRules: { trustedOrigins: [], trustedHosts: [] },
    });
    const env = new MockActivityEnvironment({
      workflowExecution: { workflowId: 'default.avatar-pipeline-quality/selfie-check', runId: 'r1' },
    });
    check = async (images) =>
      ((await env.run(activities.checkSelfieQuality, { images })) as SelfieCheckReport).issues;
  });

  it('passes three different photographs of one person', async () => {
    expect(await check(selfies.collins)).toEqual([]);
  });

  it('passes the sample selfies the demo and the docs use', async () => {
    expect(await check(sampleSelfieFiles())).toEqual([]);
  });

  it('refuses a photograph with no face, naming it', async () => {
    expect(await check([...selfies.collins, selfies.noFace])).toEqual([
      { path: 'images.3', message: 'shows no face' },
    ]);
  });

  it('refuses a photograph of another person, naming it and the distance', async () => {
    const issues = await check([selfies.collins[0]!, selfies.hopper, selfies.collins[1]!]);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('images.1');
    expect(issues[0]!.message).toMatch(
      /^shows another person than images\.0 \(face distance 0\.\d\d; one person is at most 0\.55\)$/,
    );
  });

  it('refuses a group photo', async () => {
    expect(await check([selfies.collins[0]!, selfies.group])).toEqual([
      { path: 'images.1', message: 'shows 2 faces; a selfie shows one person' },
    ]);
  });

  it('refuses a rescaled, recompressed copy as a near-duplicate', async () => {
    const copy = join(selfies.dir, 'collins-copy.jpg');
    await writeFile(copy, jpegBytes(portrait('collins'), 60));
    expect(await check([selfies.collins[0]!, selfies.collins[1]!, copy])).toEqual([
      { path: 'images.2', message: 'is a near-duplicate of images.0' },
    ]);
  });

  it('refuses a blurred photograph', async () => {
    const blurred = join(selfies.dir, 'hopper-blurred.jpg');
    await writeFile(blurred, jpegBytes(blur(portrait('hopper'), 2)));
    const issues = await check([blurred]);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      path: 'images.0',
      message: expect.stringMatching(/^is blurred \(sharpness/),
    });
  });

  it('reports a missing file as the upload would, beside the other verdicts', async () => {
    expect(await check([selfies.collins[0]!, join(selfies.dir, 'missing.jpg'), selfies.noFace])).toEqual([
      { path: 'images.1', message: expect.stringMatching(/does not exist|not found|no such/i) },
      { path: 'images.2', message: 'shows no face' },
    ]);
  });
});

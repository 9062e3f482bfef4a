import type { InputIssue } from '@avatar-pipeline/client/errors';
import type { FoundFace } from './face-models';
import { hammingDistance } from './image-measures';

/** The check workers' thresholds (FACE_MATCH_MAX_DISTANCE, FACE_MIN_SIZE, SELFIE_MIN_SHARPNESS, SELFIE_DUPLICATE_MAX_BITS). */
export interface SelfieThresholds {
  faceMatchMaxDistance: number;
  faceMinSize: number;
  minSharpness: number;
  duplicateMaxBits: number;
}

/** What was read off one selfie. Sharpness and brightness are of its face, when it shows one. */
export interface SelfieReading {
  width: number;
  height: number;
  faces: FoundFace[];
  face?: { sharpness: number; brightness: number };
  hash: bigint;
}

/** Mean grey level of the face below which it is too dark to train on, and above which it is washed out. */
const MIN_FACE_BRIGHTNESS = 45;
const MAX_FACE_BRIGHTNESS = 215;

/** Euclidean distance of two face descriptors: small for one person, large for two. */
export function faceDistance(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += ((a[i] ?? 0) - (b[i] ?? 0)) ** 2;
  return Math.sqrt(sum);
}

/**
 * Every reason to refuse a set of selfies, each on its `images.N`: no face or several, a face too
 * small, blurred, too dark or washed out, a near-duplicate of an earlier selfie, or a face of another
 * person than the rest. The person is the one most selfies show (the earliest on a tie); every
 * single-face selfie is compared with that one.
 */
export function selfieIssues(
  readings: readonly (SelfieReading | undefined)[],
  limits: SelfieThresholds,
): InputIssue[] {
  const issues: InputIssue[] = [];
  const refuse = (index: number, message: string) => issues.push({ path: `images.${index}`, message });
  readings.forEach((reading, index) => {
    if (reading === undefined) return;
    const { faces } = reading;
    if (faces.length === 0) return refuse(index, 'shows no face');
    if (faces.length > 1) return refuse(index, `shows ${faces.length} faces; a selfie shows one person`);
    const size = faces[0]!.box.width / Math.min(reading.width, reading.height);
    if (size < limits.faceMinSize) {
      refuse(
        index,
        `shows a face ${percent(size)} of the image's shorter side; at least ${percent(limits.faceMinSize)} is needed`,
      );
    }
    const face = reading.face;
    if (face && face.sharpness < limits.minSharpness) {
      refuse(
        index,
        `is blurred (sharpness ${face.sharpness.toFixed(1)}; at least ${limits.minSharpness} is needed)`,
      );
    }
    if (face && face.brightness < MIN_FACE_BRIGHTNESS) {
      refuse(
        index,
        `is too dark (face brightness ${Math.round(face.brightness)} of 255; at least ${MIN_FACE_BRIGHTNESS})`,
      );
    }
    if (face && face.brightness > MAX_FACE_BRIGHTNESS) {
      refuse(
        index,
        `is overexposed (face brightness ${Math.round(face.brightness)} of 255; at most ${MAX_FACE_BRIGHTNESS})`,
      );
    }
  });
  readings.forEach((reading, index) => {
    if (reading === undefined) return;
    const earlier = readings.findIndex(
      (other, j) =>
        other !== undefined &&
        j < index &&
        hammingDistance(other.hash, reading.hash) <= limits.duplicateMaxBits,
    );
    if (earlier >= 0) refuse(index, `is a near-duplicate of images.${earlier}`);
  });
  issues.push(...otherPersonIssues(readings, limits.faceMatchMaxDistance));
  return issues;
}

function otherPersonIssues(
  readings: readonly (SelfieReading | undefined)[],
  maxDistance: number,
): InputIssue[] {
  const single = readings.flatMap((r, index) =>
    r?.faces.length === 1 ? [{ index, face: r.faces[0]! }] : [],
  );
  if (single.length < 2) return [];
  const person =
    single[
      mostShownFace(
        single.map((s) => s.face.descriptor),
        maxDistance,
      )
    ]!;
  return single.flatMap(({ index, face }) => {
    const distance = faceDistance(person.face.descriptor, face.descriptor);
    if (distance <= maxDistance) return [];
    return [
      {
        path: `images.${index}`,
        message: `shows another person than images.${person.index} (face distance ${distance.toFixed(2)}; one person is at most ${maxDistance})`,
      },
    ];
  });
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** The face (by index) that most of `descriptors` are within `maxDistance` of; the earliest on a tie. */
function mostShownFace(descriptors: readonly (readonly number[])[], maxDistance: number): number {
  const matches = descriptors.map((a) => descriptors.filter((b) => faceDistance(a, b) <= maxDistance).length);
  return matches.indexOf(Math.max(...matches));
}

/**
 * The descriptor of the person a set of selfies shows, for later runs to compare avatars with: the
 * mean of the single faces within `maxDistance` of the face most selfies show. Undefined when no
 * selfie shows a single face.
 */
export function personDescriptor(
  readings: readonly (Pick<SelfieReading, 'faces'> | undefined)[],
  maxDistance: number,
): number[] | undefined {
  const faces = readings.flatMap((r) => (r?.faces.length === 1 ? [r.faces[0]!.descriptor] : []));
  if (faces.length === 0) return undefined;
  const person = faces[mostShownFace(faces, maxDistance)]!;
  const same = faces.filter((face) => faceDistance(person, face) <= maxDistance);
  return person.map((_, i) => same.reduce((sum, face) => sum + (face[i] ?? 0), 0) / same.length);
}

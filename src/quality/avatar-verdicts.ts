import type { AvatarCheck } from '@avatar-pipeline/client/contracts/quality-checks';
import type { ContentScores } from './content-model';
import type { FoundFace } from './face-models';
import { faceDistance } from './selfie-verdicts';

/** The check workers' avatar thresholds (FACE_MATCH_MAX_DISTANCE, AVATAR_UNSAFE_MIN_SCORE). */
export interface AvatarThresholds {
  faceMatchMaxDistance: number;
  unsafeMinScore: number;
}

/** What was read off one avatar: its faces and the content classifier's scores. */
export interface AvatarReading {
  faces: FoundFace[];
  content: ContentScores;
}

/** The classes whose probabilities add up to an avatar's unsafe score. */
const UNSAFE_CLASSES = ['Porn', 'Hentai', 'Sexy'] as const;

/**
 * An avatar's verdict: it shows a face, the face is the person's (the closest of its faces is within
 * the match distance of the person's descriptor), and the classifier does not flag it. Without a
 * descriptor (the model was trained before its person was recorded) the person is not compared,
 * and the verdict says so.
 */
export function avatarVerdict(
  reading: AvatarReading,
  person: readonly number[] | undefined,
  limits: AvatarThresholds,
): AvatarCheck {
  const reasons: string[] = [];
  const notChecked: string[] = [];
  if (reading.faces.length === 0) reasons.push('shows no face');
  else if (person === undefined)
    notChecked.push('same person: no face of the person was recorded for this model');
  else {
    const closest = Math.min(...reading.faces.map((face) => faceDistance(face.descriptor, person)));
    if (closest > limits.faceMatchMaxDistance) {
      reasons.push(
        `shows another person (face distance ${closest.toFixed(2)}; the person is within ${limits.faceMatchMaxDistance})`,
      );
    }
  }
  const unsafe = UNSAFE_CLASSES.reduce((sum, name) => sum + reading.content[name], 0);
  if (unsafe >= limits.unsafeMinScore) {
    const named = UNSAFE_CLASSES.filter((name) => reading.content[name] >= 0.01)
      .map((name) => `${name} ${reading.content[name].toFixed(2)}`)
      .join(', ');
    reasons.push(`is flagged as unsafe (${named}; flagged from ${limits.unsafeMinScore})`);
  }
  return { passed: reasons.length === 0, reasons, ...(notChecked.length > 0 ? { notChecked } : {}) };
}

import { z } from 'zod';

/**
 * How long uploaded selfies (biometric data) stay in BLOB_DIR (SELFIE_RETENTION):
 * - `after-training` (default): until the model is trained, the only step that reads them;
 * - `after-end`: until the pipeline has ended, however it ended;
 * - a duration (`30m`, `12h`, `7d`): that long after the pipeline has ended.
 */
export type SelfieRetention =
  { kind: 'after-training' } | { kind: 'after-end' } | { kind: 'after-end-plus'; ms: number };

export const DEFAULT_SELFIE_RETENTION: SelfieRetention = { kind: 'after-training' };

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const selfieRetentionSchema = z
  .string()
  .trim()
  .transform((text, ctx): SelfieRetention => {
    if (text === '' || text === 'after-training') return { kind: 'after-training' };
    if (text === 'after-end') return { kind: 'after-end' };
    const duration = /^(\d{1,6})([smhd])$/.exec(text);
    if (duration?.[1] && duration[2]) {
      return {
        kind: 'after-end-plus',
        ms: Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS],
      };
    }
    ctx.addIssue({
      code: 'custom',
      message: 'must be after-training, after-end or a duration after the end such as 30m, 12h or 7d',
    });
    return z.NEVER;
  });

/** Pipeline stages after which training no longer needs the selfies. */
const PAST_TRAINING = new Set(['generating', 'done', 'failed', 'cancelled']);

/** What the janitor knows of an upload's run: whether it has closed, and how far it got. */
export interface UploadOwnerState {
  /** Undefined while it runs. */
  closedAt?: Date;
  /** The PipelineStage search attribute, when the namespace has it. */
  stage?: string;
}

/** Whether a pipeline's uploads may be deleted now, by the retention policy. */
export function uploadsExpired(retention: SelfieRetention, state: UploadOwnerState, now: number): boolean {
  if (retention.kind === 'after-training') {
    return state.closedAt !== undefined || (state.stage !== undefined && PAST_TRAINING.has(state.stage));
  }
  if (state.closedAt === undefined) return false;
  return retention.kind === 'after-end' || now - state.closedAt.getTime() >= retention.ms;
}

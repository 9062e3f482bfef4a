/**
 * Types shared by workflows and by everything that starts or watches them (client package,
 * API, CLI). Plain types and constant lists only: this module is imported by workflow code.
 */
import type { OrderStatus } from '../provider/status';
import type { AvatarCheck } from './quality-checks';
import type { ReviewOutcome, ReviewProgress } from './review';

/** A pipeline's stages in the order a run passes them (awaiting-review only when asked for); the last three end it. */
export const PIPELINE_STAGES = [
  'creating-model',
  'uploading-selfies',
  'selecting-main-image',
  'training',
  'generating',
  /** Generated; waits for a reviewer's decisions (a run started with review required). */
  'awaiting-review',
  'done',
  'failed',
  'cancelled',
] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** A style's stages in the order it passes them; the last three end it. */
export const STYLE_STAGES = [
  'pending',
  'creating-order',
  'running',
  'polling',
  'collecting',
  'checking',
  'done',
  'failed',
  'cancelled',
] as const;
export type StyleStage = (typeof STYLE_STAGES)[number];

export interface StyleProgress {
  styleId: number;
  stage: StyleStage;
  orderId?: number;
  /** The provider's last status as it came, after normalisation (unknown values kept). */
  providerStatus?: OrderStatus;
  progress?: number;
  avatarCount?: number;
  /**
   * Once the style is done: its avatars by id and archive key, so watchers show them before the
   * run ends (the API turns each key into a link). Not the provider's URLs: they expire, and ids
   * and keys keep the kept snapshots small.
   */
  avatars?: StyleAvatar[];
  /** Which order of the style this is (from 1): more when avatars failed their checks and it was ordered again. */
  attempt?: number;
  error?: string;
}

/** A done style's avatar as progress names it. */
export interface StyleAvatar {
  avatarId: number;
  /** Key of its copy in the blob store; absent when it was not archived. */
  archiveKey?: string;
  /** The avatar checks' verdict; absent when the run checked no avatars. */
  check?: AvatarCheck;
}

export interface PipelineProgress {
  workflowId: string;
  subjectId?: string;
  campaignId?: string;
  stage: PipelineStage;
  modelId?: number;
  uploads: { done: number; total: number };
  training: { providerStatus?: OrderStatus; progress?: number; polls: number };
  styles: StyleProgress[];
  /** The review gate, when the run asked for review. */
  review?: ReviewProgress;
  error?: string;
}

export interface AvatarRef {
  avatarId: number;
  imageUrl: string;
  thumbnailUrl?: string;
  /** Key of the avatar's copy in the blob store (when archived); the API turns it into a link. */
  archiveKey?: string;
  /** The avatar checks' verdict (AVATAR_CHECKS); absent when the run checked no avatars. */
  check?: AvatarCheck;
}

export type GenerationStatus = 'DONE' | 'ERROR' | 'CANCELLED';

export interface GenerationResult {
  styleId: number;
  orderId?: number;
  status: GenerationStatus;
  avatars: AvatarRef[];
  /** Avatars whose copy into the store failed for good (only their provider URL remains). */
  notArchived?: number[];
  /**
   * Orders made for the style (AVATAR_CHECKS): 1, or more when avatars failed their checks and the
   * style was generated again. `avatars` are the last order's; absent when the run checked no avatars.
   */
  attempts?: number;
  /** Earlier orders of the style whose avatars failed their checks, and how many of them failed. */
  replacedOrders?: { orderId: number; failedAvatars: number }[];
  error?: string;
}

/** The pipeline result of docs/contracts.md. */
export interface PipelineResult {
  workflowId: string;
  subjectId?: string;
  modelId: number;
  /** DONE when every style succeeded, PARTIAL when at least one did. */
  status: 'DONE' | 'PARTIAL';
  generations: GenerationResult[];
  /** What review decided, when the run asked for review; `generations` then hold approved work only. */
  review?: ReviewOutcome;
}

import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PipelineProgress, StyleProgress } from '../src/contracts/pipeline-state';

/** Live progress of a pipeline: stage, model, uploads, training and every style. Works after close too. */
export const progressQuery = defineQuery<PipelineProgress>('progress');

/** Sent by a style's child workflow to its pipeline when that style moves on. */
export const styleProgressSignal = defineSignal<[StyleProgress]>('styleProgress');

export const WORKFLOW_TYPES = {
  pipeline: 'avatarPipeline',
  style: 'styleGeneration',
  claim: 'providerOrderClaim',
  callback: 'pipelineCallback',
} as const;

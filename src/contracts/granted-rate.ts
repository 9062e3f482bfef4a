/**
 * The provider rate controller's contract: one workflow per provider task queue owns the queue's
 * rate limit (the rate the provider grants this deployment, learned from its answers), the provider
 * workers report their answers to it, and the campaigns' windows read the rate it set. The shapes
 * of the reports and of the controller's state are in granted-rate-state.ts: workflows import
 * them as types only, so zod stays out of the workflow bundle.
 */
import { defineQuery, defineSignal } from '@avatar-pipeline/client/contracts/message-definitions';
import type { GrantedRateState, ProviderAnswers } from './granted-rate-state';

export interface GrantedRateInput {
  providerTaskQueue: string;
  /** PROVIDER_MAX_RPS of the worker that started the controller. */
  ceiling: number;
  /** The state of the run this one continues. */
  carried?: GrantedRateState;
}

/** What the controller answers when asked; the queue's rate limit is also readable from Temporal. */
export interface GrantedRateView {
  rate: number;
  ceiling: number;
  knee?: number;
  rateLimitedTotal: number;
  acceptedTotal: number;
  /** Why the rate is what it is (the last decision). */
  reason: string;
}

export const providerAnswersSignal = defineSignal<[ProviderAnswers]>('providerAnswers');
export const grantedRateQuery = defineQuery<GrantedRateView>('grantedRate');

/** One controller per provider task queue, so its id is the queue's. */
export function grantedRateWorkflowId(providerTaskQueue: string): string {
  return `provider-rate:${providerTaskQueue}`;
}

/** The controller's workflow type. */
export const GRANTED_RATE_WORKFLOW_TYPE = 'providerGrantedRate';
/** The controller's signature, for typed handles. */
export type GrantedRateWorkflow = (input: GrantedRateInput) => Promise<void>;

/**
 * What the provider activities (activities/provider-*-activities.ts) answer the workflows that
 * call them: a model offered for a claim, and an order's status. Workflows import them as types.
 */
import type { OrderStatus } from '@avatar-pipeline/client/provider/status';

export interface ModelOffer {
  modelId: number;
  /** Workflow id whose creation claims this model for exactly one pipeline. */
  claimId: string;
}

export interface StatusReport {
  status: OrderStatus;
  progress?: number;
  message?: string;
}

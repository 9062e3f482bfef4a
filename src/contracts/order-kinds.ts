/**
 * The names of the kinds of provider orders whose durations are learned (order-durations.ts):
 * orders that take alike. Apart from the schemas so that workflows name kinds without bundling zod.
 */
import type { OrderKind } from './order-durations';

/** A training, by its selfie count. */
export function trainingKind(selfieCount: number): OrderKind {
  return `training-${selfieCount}-selfies`;
}

/** A generation, by its style. */
export function generationKind(styleId: number): OrderKind {
  return `generation-style-${styleId}`;
}

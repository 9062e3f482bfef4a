/** The kinds of provider work the meter counts: a training (a model), one style generated, a regeneration. Workflow-safe: no zod. */
export const ORDER_KINDS = ['training', 'generation', 'regeneration'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

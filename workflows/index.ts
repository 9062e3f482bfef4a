/** Everything the worker registers. Workflow code only: bundled into Temporal's deterministic sandbox. */
export { avatarPipeline } from './pipeline';
export { modelTraining } from './model-training';
export { avatarGeneration } from './avatar-generation';
export { providerOrderClaim } from './obtain-model';
export { webhookDelivery, webhookRedelivery } from './webhook-delivery';
export { avatarCampaign } from './campaign/campaign';
export { providerGrantedRate } from './granted-rate';
export { selfieCheck } from './selfie-check';
export { budgetMeter } from './budget/budget-meter';

/** Everything the worker registers. Workflow code only: bundled into Temporal's deterministic sandbox. */
export { avatarPipeline } from './pipeline';
export { styleGeneration } from './style-generation';
export { providerOrderClaim } from './obtain-model';
export { pipelineCallback } from './pipeline-callback';
export { avatarCampaign } from './campaign';

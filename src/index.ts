/**
 * avatar-pipeline: the platform that runs durable avatar pipelines on Temporal.
 *
 * It carries everything of @avatar-pipeline/client (starting and watching runs, the shapes that go
 * in and come out, the provider's typed client) and adds what runs the work: workers, campaigns,
 * configuration of the whole platform and the provider simulator.
 */

export * from '@avatar-pipeline/client';

// Batch campaigns: manifests, starting, steering and exporting.
export { startCampaign, getCampaign, newCampaignId } from '@avatar-pipeline/client/campaign/campaigns';
export type { CampaignHandle, StartCampaignOptions } from '@avatar-pipeline/client/campaign/campaigns';
export {
  loadManifestFile,
  validateManifestText,
  validateManifestObjects,
  ManifestError,
  type ManifestIssue,
  type ManifestValidation,
} from './campaign/manifest';
export type {
  CampaignOptions,
  CampaignProgress,
  CampaignResultRow,
  CampaignSubject,
  CampaignSummary,
  SubjectSummary,
} from '@avatar-pipeline/client/contracts/campaign/campaign';

// Configuration from the environment.
export { loadConfig } from './config';
export type { AppConfig } from './config';

// Running the work.
export { createPipelineWorker, createProviderWorker } from './worker/create-worker';
export { pipelineWorkflowBundle } from './worker/workflow-bundle';
export { PipelineWorkers } from './worker/pipeline-workers';
export type { PipelineWorkerOptions } from './worker/create-worker';

// Local stand-ins: the provider simulator and the Temporal dev server.
export {
  startSimulator,
  DEFAULT_STYLES,
  type RunningSimulator,
  type SimulatorOptions,
  type StartSimulatorOptions,
  type SimulatorStats,
} from './simulator';

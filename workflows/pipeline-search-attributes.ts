import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { PipelineStage } from '../src/contracts/pipeline-state';
import {
  ModelIdAttribute,
  PipelineStageAttribute,
  SubjectIdAttribute,
} from '../src/contracts/search-attributes';

/**
 * Marks histories whose runs keep PipelineStage and ModelId current. Runs recorded before it
 * replay without the upserts, so changing this code never breaks a run already in flight.
 */
export const SEARCH_ATTRIBUTES_PATCH = 'search-attributes-v1';

/**
 * Keeps the run's PipelineStage and ModelId search attributes in step with the pipeline, when
 * its starter set PipelineStage (which tells that the namespace has the attributes registered;
 * upserting an unregistered one would fail every workflow task).
 */
export class PipelineSearchAttributes {
  private readonly enabled: boolean;
  /** SubjectId as the starter set it (a token when payloads are encrypted), for log context. */
  readonly subjectKey: string | undefined;

  constructor() {
    const attributes = workflowInfo().typedSearchAttributes;
    this.subjectKey = attributes.get(SubjectIdAttribute);
    this.enabled = attributes.get(PipelineStageAttribute) !== undefined && patched(SEARCH_ATTRIBUTES_PATCH);
  }

  stage(stage: PipelineStage): void {
    if (!this.enabled) return;
    if (workflowInfo().typedSearchAttributes.get(PipelineStageAttribute) === stage) return;
    upsertSearchAttributes([{ key: PipelineStageAttribute, value: stage }]);
  }

  model(modelId: number): void {
    if (this.enabled) upsertSearchAttributes([{ key: ModelIdAttribute, value: modelId }]);
  }
}

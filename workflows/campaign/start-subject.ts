import { ParentClosePolicy, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import type { CampaignSubject } from '@avatar-pipeline/client/contracts/campaign/campaign';
import type { CampaignInput } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import type { GenerationWorkflowInput } from '@avatar-pipeline/client/contracts/model-runs';
import type { PipelineWorkflowInput } from '@avatar-pipeline/client/contracts/pipeline-input';
import { pipelineStartAttributes } from '@avatar-pipeline/client/contracts/search-attributes';
import {
  WORKFLOW_TYPES,
  type AvatarGenerationWorkflow,
  type AvatarPipelineWorkflow,
} from '@avatar-pipeline/client/contracts/workflow-definitions';

/**
 * Starts one subject's pipeline as a child that outlives this run (it reports its end by signal,
 * see report.ts); resolves once it has started. A subject with a modelId starts a
 * generation run under that model instead (its model was checked by the starter); it reports the
 * same way and answers the pipeline's result shape.
 */
export async function startSubject(
  campaignId: string,
  workflowId: string,
  subject: CampaignSubject,
  input: CampaignInput,
): Promise<void> {
  const common = {
    // With payload encryption the subject's keyed hash stands in for its id (ids are plaintext).
    workflowId,
    ...(input.pipeline.taskQueue ? { taskQueue: input.pipeline.taskQueue } : {}),
    // A subject that succeeded is never run twice; a failed or cancelled one may be retried.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    // Children outlive the run that started them; cancelling the campaign cancels them explicitly.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    // Campaign work yields to interactive pipelines (default priority 3) on every task queue, and
    // tenants share each queue fairly: one fairness key per tenant (per campaign in campaigns
    // started before tenants), with the operator's weight. Activities inherit it.
    priority: {
      priorityKey: input.priorityKey,
      fairnessKey: input.fairnessKey ?? campaignId,
      fairnessWeight: input.fairnessWeight,
    },
    memo: { subjectId: subject.subjectId, campaignId, tenant: input.tenant },
    // As every starter does: the UI filters a campaign's pipelines by CampaignId (SubjectId keyed when encrypted).
    typedSearchAttributes: pipelineStartAttributes({
      tenant: input.tenant,
      ...(subject.searchKey ? { subjectKey: subject.searchKey } : {}),
      campaignId,
    }),
  };
  const shared = {
    tenant: input.tenant,
    styles: subject.styles,
    gender: subject.gender,
    subjectId: subject.subjectId,
    campaignId,
    generationDeadlineMs: input.pipeline.generationDeadlineMs,
    polling: input.pipeline.polling,
    providerTaskQueue: input.pipeline.providerTaskQueue,
    ...(input.pipeline.archiveAvatars ? { archiveAvatars: true } : {}),
    ...(input.pipeline.review ? { review: input.pipeline.review } : {}),
  };
  if (subject.modelId !== undefined) {
    // A subject with a model checks its avatars against the face its subject's training recorded.
    const avatarChecks = input.pipeline.checks?.avatars;
    const args: GenerationWorkflowInput = {
      ...shared,
      modelId: subject.modelId,
      ...(avatarChecks && input.pipeline.checks
        ? { checks: { taskQueue: input.pipeline.checks.taskQueue, avatars: avatarChecks } }
        : {}),
    };
    await startChild<AvatarGenerationWorkflow>(
      input.pipeline.generationWorkflowType ?? WORKFLOW_TYPES.generation,
      {
        ...common,
        args: [args],
        staticSummary: `${subject.subjectId} (campaign ${campaignId}): styles ${subject.styles.join(', ')} under model ${subject.modelId}`,
      },
    );
    return;
  }
  const args: PipelineWorkflowInput = {
    ...shared,
    images: subject.images,
    mainImageIndex: subject.mainImageIndex,
    trainingDeadlineMs: input.pipeline.trainingDeadlineMs,
    ...(input.pipeline.checks ? { checks: input.pipeline.checks } : {}),
  };
  await startChild<AvatarPipelineWorkflow>(input.pipeline.workflowType ?? WORKFLOW_TYPES.pipeline, {
    ...common,
    args: [args],
    staticSummary: `${subject.subjectId} (campaign ${campaignId}): ${subject.images.length} selfies, styles ${subject.styles.join(', ')}`,
  });
}

import { getExternalWorkflowHandle, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { GenerationResult, StyleGenerationInput, StyleProgress } from '../src/contracts/pipeline-state';
import { collection, writes } from './activity-proxies';
import { styleProgressSignal } from './definitions';
import { pollUntilDone } from './poll-order';

/**
 * One style of one pipeline, as its own child workflow so it shows on its own in the UI: create a
 * generation order under the model, run it, poll it to DONE, collect every avatar.
 */
export async function styleGeneration(input: StyleGenerationInput): Promise<GenerationResult> {
  const { modelId, styleId, gender } = input;
  const report = progressReporter(styleId);

  report({ stage: 'creating-order' });
  const { orderId } = await writes.createGenerationOrder.executeWithOptions(
    { summary: `create order for style ${styleId} under model ${modelId}` },
    [{ modelId, styleId, gender }],
  );

  report({ stage: 'running', orderId });
  const started = await writes.runOrder.executeWithOptions(
    { summary: `run order ${orderId} (style ${styleId})` },
    [{ orderId }],
  );

  report({ stage: 'polling', orderId, providerStatus: started.status });
  try {
    await pollUntilDone({
      orderId,
      label: `generation of style ${styleId} (order ${orderId})`,
      deadlineMs: input.deadlineMs,
      polling: input.polling,
      onStatus: (s) =>
        report({
          stage: 'polling',
          orderId,
          providerStatus: s.status,
          ...(s.progress !== undefined ? { progress: s.progress } : {}),
        }),
    });
  } catch (err) {
    if (!isCancellation(err))
      report({ stage: 'failed', orderId, error: err instanceof Error ? err.message : String(err) });
    throw err;
  }

  report({ stage: 'collecting', orderId, providerStatus: 'DONE', progress: 100 });
  const { avatars } = await collection.collectAvatars.executeWithOptions(
    { summary: `collect avatars of order ${orderId}` },
    [{ orderId }],
  );
  report({ stage: 'done', orderId, avatarCount: avatars.length });
  return { styleId, orderId, status: 'DONE', avatars };
}

/** Tells the parent pipeline (if any) how this style is doing; a closed parent is not an error. */
function progressReporter(styleId: number) {
  const parent = workflowInfo().parent;
  const handle = parent ? getExternalWorkflowHandle(parent.workflowId, parent.runId) : undefined;
  return (update: Omit<StyleProgress, 'styleId'>) => {
    handle?.signal(styleProgressSignal, { styleId, ...update }).catch(() => undefined);
  };
}

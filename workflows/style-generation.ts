import { getExternalWorkflowHandle, isCancellation, workflowInfo } from '@temporalio/workflow';
import { AvatarPageWalk } from '../src/provider/avatar-page-walk';
import type {
  AvatarRef,
  GenerationResult,
  StyleGenerationInput,
  StyleProgress,
} from '../src/contracts/pipeline-state';
import { styleProgressSignal } from '../src/contracts/workflow-definitions';
import { reads, writes, type ProviderRoute } from './activity-proxies';
import { archiveAvatars } from './archive-avatars';
import { pollUntilDone } from './polling';

/**
 * One style of one pipeline, as its own child workflow so it shows on its own in the UI: create a
 * generation order under the model, run it, poll it to DONE, collect every avatar.
 */
export async function styleGeneration(input: StyleGenerationInput): Promise<GenerationResult> {
  const { modelId, styleId, gender } = input;
  const report = progressReporter(styleId);
  const route: ProviderRoute = { taskQueue: input.providerTaskQueue };

  report({ stage: 'creating-order' });
  const { orderId } = await writes.createGenerationOrder.executeWithOptions(
    { summary: `create order for style ${styleId} under model ${modelId}`, ...route },
    [{ modelId, styleId, gender }],
  );

  report({ stage: 'running', orderId });
  const started = await writes.runOrder.executeWithOptions(
    { summary: `run order ${orderId} (style ${styleId})`, ...route },
    [{ orderId }],
  );

  report({ stage: 'polling', orderId, providerStatus: started.status });
  try {
    await pollUntilDone({
      known: started,
      orderId,
      label: `generation of style ${styleId} (order ${orderId})`,
      deadlineMs: input.deadlineMs,
      polling: input.polling,
      route,
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
  const collected = await collectPageByPage(orderId, route);
  if (input.archive === undefined) {
    report({ stage: 'done', orderId, avatarCount: collected.length });
    return { styleId, orderId, status: 'DONE', avatars: collected };
  }
  const { avatars, notArchived } = await archiveAvatars(input.archive, { modelId, orderId }, collected);
  report({ stage: 'done', orderId, avatarCount: avatars.length });
  return { styleId, orderId, status: 'DONE', avatars, ...(notArchived.length > 0 ? { notArchived } : {}) };
}

/**
 * Walks the order's avatar pages, one activity per page: each provider activity is one request,
 * so the provider queue's rate limit is a request rate.
 */
async function collectPageByPage(orderId: number, route: ProviderRoute): Promise<AvatarRef[]> {
  const walk = new AvatarPageWalk<AvatarRef>((a) => a.avatarId);
  for (let page = walk.next; page !== undefined; page = walk.next) {
    const { avatars } = await reads.listAvatarPage.executeWithOptions(
      { summary: `read avatar page ${page} of order ${orderId}`, ...route },
      [{ orderId, page }],
    );
    walk.add(avatars);
  }
  return walk.avatars;
}

/** Tells the parent pipeline (if any) how this style is doing; a closed parent is not an error. */
function progressReporter(styleId: number) {
  const parent = workflowInfo().parent;
  const handle = parent ? getExternalWorkflowHandle(parent.workflowId, parent.runId) : undefined;
  return (update: Omit<StyleProgress, 'styleId'>) => {
    handle?.signal(styleProgressSignal, { styleId, ...update }).catch(() => undefined);
  };
}

import type { AvatarRef, GenerationResult, StyleGenerationInput } from '../src/contracts/pipeline-state';
import { AvatarPageWalk } from '../src/provider/avatar-page-walk';
import { reads, type ProviderRoute } from './activity-proxies';
import { archiveAvatars } from './archive-avatars';

/**
 * One style of one pipeline once its generation order is DONE, as its own child workflow so it
 * shows on its own in the UI: collect every avatar of the order and archive them. The parent
 * creates, runs and polls the orders (workflows/generation-watch.ts: the orders of one model
 * are polled together) and tracks the style's progress itself.
 */
export async function styleGeneration(input: StyleGenerationInput): Promise<GenerationResult> {
  const { modelId, styleId, orderId } = input;
  const collected = await collectPageByPage(orderId, { taskQueue: input.providerTaskQueue });
  if (input.archive === undefined) return { styleId, orderId, status: 'DONE', avatars: collected };
  const { avatars, notArchived } = await archiveAvatars(input.archive, { modelId, orderId }, collected);
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

import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { CLAIM_IDS_PER_ORDER, claimIdAt } from '@avatar-pipeline/client/contracts/workflow-ids';
import type { ModelOffer } from '../src/contracts/provider-activity-results';

/** What holds a claim's workflow id: a claim (another pipeline owns the order), something else, or nothing now. */
export type ClaimHolder = 'claim' | 'other' | 'none';

/** The type of the workflow holding `workflowId`; rejects with WorkflowNotFoundError when none does. */
export type DescribeWorkflow = (workflowId: string) => Promise<{ type: string }>;

/**
 * The most offers findUnclaimed answers. The workflow tries each with a claim child (about 11
 * history events and 2 workflow tasks when the claim is refused), so a short list keeps a round's
 * history small however many models the account holds. An offer found unclaimed is refused only
 * when another pipeline claims it between the check and the start, so a few spare offers are enough.
 */
export const MAX_UNCLAIMED_OFFERS = 10;

/**
 * Describe calls in flight at once: a list of hundreds of candidates is read in seconds without
 * one activity sending hundreds of requests at the Temporal frontend together.
 */
const DESCRIBES_AT_ONCE = 8;

const describeWithWorkerClient: DescribeWorkflow = (workflowId) =>
  Context.current().client.workflow.getHandle(workflowId).describe();

/**
 * Activities of order claims (workflows/obtain-model.ts); they run on the pipeline task queue.
 * `describe` reads workflow ids through the worker's client unless a test hands in its own.
 */
export function createClaimActivities({
  describe = describeWithWorkerClient,
}: { describe?: DescribeWorkflow } = {}) {
  const holderOf = async (claimId: string): Promise<ClaimHolder> => {
    try {
      return (await describe(claimId)).type === WORKFLOW_TYPES.claim ? 'claim' : 'other';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'none';
      throw err;
    }
  };

  /** Whether a claim on `offer` could still succeed: walks its ids as the workflow's claim does. */
  const claimable = async (offer: ModelOffer): Promise<boolean> => {
    const context = Context.current();
    for (let n = 0; n < CLAIM_IDS_PER_ORDER; n++) {
      context.cancellationSignal.throwIfAborted();
      const holder = await holderOf(claimIdAt(offer.claimId, n));
      context.heartbeat();
      if (holder !== 'other') return holder === 'none';
    }
    return false;
  };

  return {
    /**
     * Asked only after a claim's start was refused: only a claim workflow at that id means another
     * pipeline owns the order. Anything else there (a workflow squatting the id) owns nothing.
     */
    async claimHolder(input: { claimId: string }): Promise<{ holder: ClaimHolder }> {
      return { holder: await holderOf(input.claimId) };
    },

    /**
     * The candidates a claim could still win (`offers`), oldest first, at most MAX_UNCLAIMED_OFFERS,
     * and those read and found taken (`taken`: held by a claim, or every id of theirs squatted),
     * which the workflow leaves out of its later lists. Under load most CREATED models of an account
     * are other pipelines' models, claimed and awaiting their selfies, and one describe each here is
     * far cheaper than a refused claim each in the workflow's history. Oldest first because the
     * newest unclaimed models are likely another pipeline's, created a moment ago and about to be
     * claimed, while an old one is what a lost answer left behind; provider ids grow with creation
     * (the simulator's do), so the lowest id is the oldest. The order is a guess that saves refused
     * claims, not what keeps models owned (workflows/obtain-model.ts argues that). Only a filter: a
     * claim started on an offer can still be refused, and the workflow handles that.
     */
    async findUnclaimed(input: {
      candidates: ModelOffer[];
    }): Promise<{ offers: ModelOffer[]; taken: number[] }> {
      const byAge = [...input.candidates].sort((a, b) => a.modelId - b.modelId);
      const found: ModelOffer[] = [];
      const taken: number[] = [];
      let next = 0;
      // Offers are taken in age order and none once enough are found, so every offer left unread
      // is newer than every one read: the oldest unclaimed are among those read.
      const reader = async () => {
        while (found.length < MAX_UNCLAIMED_OFFERS && next < byAge.length) {
          const offer = byAge[next++]!;
          if (await claimable(offer)) found.push(offer);
          else taken.push(offer.modelId);
        }
      };
      await Promise.all(Array.from({ length: DESCRIBES_AT_ONCE }, reader));
      return {
        offers: found.sort((a, b) => a.modelId - b.modelId).slice(0, MAX_UNCLAIMED_OFFERS),
        taken: taken.sort((a, b) => a - b),
      };
    },
  };
}

export type ClaimActivities = ReturnType<typeof createClaimActivities>;

import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ApplicationFailure,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { ClaimActivities } from '../activities/claim-activities';
import type { ModelOffer } from '../activities/provider-activities';
import type { PipelineWorkflowInput } from '../src/contracts/pipeline-input';
import { CLAIM_IDS_PER_ORDER, claimIdAt } from '../src/contracts/workflow-ids';
import { reads, writes, type ProviderRoute } from './activity-proxies';

/** How many times to look for (or make) a model this pipeline can own before giving up. */
const MODEL_ROUNDS = 5;
/** Claim reads are Temporal reads on the pipeline's own task queue, not provider calls. */
const claimReadRetry = { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2 };
const { claimHolder } = proxyActivities<ClaimActivities>({
  startToCloseTimeout: '30 seconds',
  retry: claimReadRetry,
});
/**
 * One describe per candidate id, a few at once: a long list takes a while, so the activity
 * heartbeats and a dead worker's attempt is retried after the heartbeat timeout.
 */
const { findUnclaimed } = proxyActivities<ClaimActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  scheduleToCloseTimeout: '15 minutes',
  retry: claimReadRetry,
});

/**
 * Creates the model, or after a lost answer adopts the one that create left behind. A claim (a
 * workflow id per provider model) makes the model this pipeline's alone, so two pipelines
 * reconciling at once never share one, and every model a lost answer left behind is adopted by
 * some pipeline rather than duplicated.
 */
export async function obtainModel(
  input: Pick<PipelineWorkflowInput, 'styles' | 'gender'>,
  route: ProviderRoute,
): Promise<number> {
  // Round 1 creates (the activity reconciles itself should its answer be lost). Later rounds
  // alternate: after our new model was taken, look for the one the taker left behind; after every
  // candidate turned out to be someone else's, none of them is ours to find, so create again.
  let reconcile = false;
  for (let round = 0; round < MODEL_ROUNDS; round++) {
    const outcome = await writes.createModel.executeWithOptions(
      {
        summary: reconcile
          ? `find or create model (round ${round + 1})`
          : `create model (round ${round + 1})`,
        ...route,
      },
      [{ styles: input.styles, gender: input.gender, reconcileFirst: reconcile }],
    );
    if (outcome.created) {
      if (await claim(outcome.created.claimId, `model ${outcome.created.modelId}`)) {
        return outcome.created.modelId;
      }
      reconcile = true;
      continue;
    }
    // Under load most candidates are other pipelines' models, claimed and awaiting their selfies:
    // one activity reads their claim ids, and only the few a claim could still win cost a claim.
    const { offers } = await findUnclaimed.executeWithOptions(
      { summary: `find unclaimed models among ${outcome.candidates.length} (round ${round + 1})` },
      [{ candidates: outcome.candidates }],
    );
    for (const offer of offers) {
      if (await claimEmpty(offer, route)) return offer.modelId;
    }
    reconcile = false;
  }
  throw ApplicationFailure.nonRetryable(
    `Could not obtain a model of its own after ${MODEL_ROUNDS} rounds: every candidate was claimed by another pipeline`,
    'ModelUnavailable',
  );
}

/**
 * A claimed candidate is used only when it has no training images: models of this system are
 * claimed before their first upload, so one with images came from elsewhere (another app on the
 * same account) and stays untouched. The claim keeps later rounds from looking at it again.
 */
async function claimEmpty(offer: ModelOffer, route: ProviderRoute): Promise<boolean> {
  if (!(await claim(offer.claimId, `model ${offer.modelId}`))) return false;
  const { count } = await reads.countTrainingImages.executeWithOptions(
    { summary: `check model ${offer.modelId} has no selfies yet`, ...route },
    [{ modelId: offer.modelId }],
  );
  return count === 0;
}

/**
 * A claim's only job is to exist: its workflow id names one provider order, and Temporal lets
 * exactly one execution hold an id. Whoever starts it owns the order.
 */
export async function providerOrderClaim(owner: string): Promise<string> {
  return owner;
}

/**
 * True when this pipeline now owns the order behind `claimId`; false when another pipeline does.
 * Only a claim workflow at the id means that: an id held by anything else (a workflow that
 * squatted it) owns nothing, and the claim moves to the order's next id, which every pipeline
 * tries in the same order, so one of them still owns the order alone. A squatted id therefore
 * never makes a model, or the models after it, unusable.
 */
async function claim(claimId: string, what: string): Promise<boolean> {
  let attempt = 0;
  for (let tries = 0; tries < CLAIM_IDS_PER_ORDER + 1; tries++) {
    const id = claimIdAt(claimId, attempt);
    if (await startClaim(id, what)) return true;
    const { holder } = await claimHolder({ claimId: id });
    if (holder === 'claim') return false;
    // 'none': whatever refused us is gone (deleted); the same id is tried again.
    if (holder === 'other') attempt++;
    if (attempt >= CLAIM_IDS_PER_ORDER) return false;
  }
  return false;
}

/** Starts the claim workflow at `claimId`; false when Temporal refuses because the id is taken. */
async function startClaim(claimId: string, what: string): Promise<boolean> {
  try {
    const held = await startChild(providerOrderClaim, {
      workflowId: claimId,
      args: [workflowInfo().workflowId],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `claim ${what} for ${workflowInfo().workflowId}`,
    });
    // Waiting for the claim to close keeps no stray workflow task behind this pipeline.
    await held.result();
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

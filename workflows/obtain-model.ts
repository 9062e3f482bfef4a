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
import type { ModelOffer } from '../src/contracts/provider-activity-results';
import type { PipelineWorkflowInput } from '@avatar-pipeline/client/contracts/pipeline-input';
import { CLAIM_IDS_PER_ORDER, claimIdAt } from '@avatar-pipeline/client/contracts/workflow-ids';
import { reads, writes, type ProviderRoute } from './activity-proxies';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

/**
 * How many rounds (a create or a list, then claims) before giving up. Every round that ends
 * without a model adds at least one model to the ones this pipeline has seen taken, so a round is
 * repeated only when another pipeline won a claim.
 */
const MODEL_ROUNDS = 10;
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
 * Creates the model, or after a lost answer adopts one a create left behind. A claim (a workflow
 * id per provider model) makes the model this pipeline's alone, so two pipelines reconciling at
 * once never share one.
 *
 * No model of this shape is left unowned once every pipeline of its shape holds one. The rule
 * that ensures it: after round 1, a pipeline sends a create only when a list taken after every
 * claim it saw holds no model beyond those it saw taken (the create activity lists and creates in
 * one attempt), and a lost create is looked for only once it has settled (PROVIDER_WRITE_SETTLE_MS).
 * The argument counts, at any moment, U (models created and settled, owned by no claim), F
 * (creates in flight) and W (pipelines between such a list, or their start, and their create),
 * against S (pipelines without a model), and shows U + F + W <= S always holds:
 * - a pipeline without a model counts at most once in F + W: its next create waits for its last
 *   one to settle;
 * - a start adds one to S and W; a create moves one from W to F; settling moves one from F to U;
 *   a won claim on an unowned model takes one from U and one from S (on another app's model, one
 *   from S only); nothing else changes U, F or S;
 * - an empty list adds one to W, and at the moment of that list U = 0: every unowned model is
 *   CREATED and so listed, and none of them is among the taken, since a claim is never released. So
 *   just after it U + F + W = F + W <= S.
 * When every pipeline holds a model, S = F = W = 0, so U = 0. This is why a round that ends with
 * every offer taken lists again rather than creating: a list taken before another pipeline adopted
 * a model may lack the model that pipeline's own lost create left behind, and a create after that
 * list would leave one model unowned.
 * A pipeline that gives up (ModelUnavailable) or is cancelled leaves S with its count in F or U,
 * so its own model may stay unowned; so may a model whose every claim id another workflow holds.
 */
export async function obtainModel(
  input: Pick<PipelineWorkflowInput, 'styles' | 'gender'>,
  route: ProviderRoute,
): Promise<number> {
  // Round 1 creates (the activity reconciles itself should its answer be lost); every later round
  // lists first, leaving out what this pipeline saw taken, and creates only when nothing is left.
  const taken = new Set<number>();
  for (let round = 0; round < MODEL_ROUNDS; round++) {
    const reconcile = round > 0;
    const outcome = await writes.createModel.executeWithOptions(
      {
        summary: reconcile
          ? `find or create model (round ${round + 1})`
          : `create model (round ${round + 1})`,
        ...route,
      },
      [{ styles: input.styles, gender: input.gender, reconcileFirst: reconcile, taken: [...taken] }],
    );
    if (outcome.created) {
      if (await claim(outcome.created.claimId, `model ${outcome.created.modelId}`)) {
        return outcome.created.modelId;
      }
      taken.add(outcome.created.modelId);
      continue;
    }
    // Under load most candidates are other pipelines' models, claimed and awaiting their selfies:
    // one activity reads their claim ids, and only the few a claim could still win cost a claim.
    const found = await findUnclaimed.executeWithOptions(
      { summary: `find unclaimed models among ${outcome.candidates.length} (round ${round + 1})` },
      [{ candidates: outcome.candidates }],
    );
    for (const modelId of found.taken) taken.add(modelId);
    for (const offer of found.offers) {
      if (await claimEmpty(offer, route)) return offer.modelId;
      // Refused, or claimed by this pipeline and found with another app's selfies: not to be had.
      taken.add(offer.modelId);
    }
  }
  throw ApplicationFailure.nonRetryable(
    `Could not obtain a model of its own after ${MODEL_ROUNDS} rounds: every candidate was claimed by another pipeline`,
    FAILURE_TYPES.modelUnavailable,
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

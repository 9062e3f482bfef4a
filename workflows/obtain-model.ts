import { ApplicationFailure, patched } from '@temporalio/workflow';
import type { PipelineInput } from '../src/contracts/pipeline-input';
import type { ModelOffer } from '../activities/provider-activities';
import { reads, writes } from './activity-proxies';
import { claim } from './claim';

/** How many times to look for (or make) a model this pipeline can own before giving up. */
const MODEL_ROUNDS = 5;

/**
 * Reconciling a lost create used to list every model of the pipeline's shape and read each one's
 * training images inside one activity: one request per model, so with many pipelines in flight a
 * single flaky answer failed the whole attempt and retries backed off for minutes. Now the
 * activity lists once and the workflow checks only the model it manages to claim.
 */
export const MODEL_LIST_ONCE_PATCH = 'model-reconcile-list-once';

/** Activity options for provider calls: the provider task queue when the pipeline has one. */
export interface ProviderRoute {
  taskQueue?: string;
}

/**
 * Creates the model, or after a lost answer adopts the one that create left behind. A claim (a
 * workflow id per provider model) makes the model this pipeline's alone, so two pipelines
 * reconciling at once never share one, and every model a lost answer left behind is adopted by
 * some pipeline rather than duplicated.
 */
export async function obtainModel(input: PipelineInput, route: ProviderRoute): Promise<number> {
  return patched(MODEL_LIST_ONCE_PATCH) ? obtainByListingOnce(input, route) : obtainLegacy(input, route);
}

async function obtainByListingOnce(input: PipelineInput, route: ProviderRoute): Promise<number> {
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
      [{ styles: input.styles, gender: input.gender, reconcileFirst: reconcile, listOnce: true }],
    );
    if (outcome.created) {
      if (await claim(outcome.created.claimId, `model ${outcome.created.modelId}`)) {
        return outcome.created.modelId;
      }
      reconcile = true;
      continue;
    }
    for (const offer of outcome.candidates) {
      if (await claimEmpty(offer, route)) return offer.modelId;
    }
    reconcile = false;
  }
  throw modelUnavailable();
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

/** Pipelines that started before MODEL_LIST_ONCE_PATCH: the activity checked every candidate's images. */
async function obtainLegacy(input: PipelineInput, route: ProviderRoute): Promise<number> {
  for (let round = 0; round < MODEL_ROUNDS; round++) {
    const outcome = await writes.createModel.executeWithOptions(
      { summary: round === 0 ? 'create model' : `find or create model (round ${round + 1})`, ...route },
      [{ styles: input.styles, gender: input.gender, reconcileFirst: round > 0 }],
    );
    const offers = outcome.created ? [outcome.created] : outcome.candidates;
    for (const offer of offers) {
      if (await claim(offer.claimId, `model ${offer.modelId}`)) return offer.modelId;
    }
  }
  throw modelUnavailable();
}

function modelUnavailable(): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `Could not obtain a model of its own after ${MODEL_ROUNDS} rounds: every candidate was claimed by another pipeline`,
    'ModelUnavailable',
  );
}

import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { CampaignIdAttribute } from '../contracts/search-attributes';
import { progressQuery } from '../contracts/workflow-definitions';
import {
  campaignReviewsSchema,
  type CampaignReviewResult,
  type CampaignReviews,
  type ReviewDecision,
} from '../contracts/review';
import { InputError } from '../errors';
import { submitReview, type SubmitReviewOptions } from './review';

/** Runs decided on at once: enough to hide round trips, few enough to leave the server room. */
const CONCURRENCY = 8;

/**
 * A reviewer's decisions for many runs of one campaign (`campaignId`: its workflow id). Each run
 * is checked to be the campaign's, then decided as `submitReview` would; a run that refuses (or
 * is not the campaign's) is answered refused with its fields named (`reviews.3.decisions.0.styleId`)
 * and touches no other; a whole-run `decision` for a run with nothing left to decide is unchanged.
 * A malformed batch is an InputError, and nothing is decided.
 * `requestId`: each run's update id is derived from it, so the same batch again decides nothing twice.
 */
export async function submitCampaignReviews(
  client: Client,
  campaignId: string,
  request: unknown,
  options: SubmitReviewOptions,
): Promise<CampaignReviewResult[]> {
  const parsed = campaignReviewsSchema.safeParse(request);
  if (!parsed.success) throw InputError.fromZod(parsed.error);
  const reviews = parsed.data.reviews;
  const results: CampaignReviewResult[] = new Array(reviews.length);
  let next = 0;
  const work = async () => {
    while (next < reviews.length) {
      const index = next++;
      results[index] = await decideOne(client, campaignId, reviews[index]!, index, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, reviews.length) }, work));
  return results;
}

type Entry = CampaignReviews['reviews'][number];

async function decideOne(
  client: Client,
  campaignId: string,
  entry: Entry,
  index: number,
  options: SubmitReviewOptions,
): Promise<CampaignReviewResult> {
  const { workflowId } = entry;
  const refused = (path: string, message: string): CampaignReviewResult => ({
    workflowId,
    effect: 'refused',
    decided: 0,
    issues: [{ path: `reviews.${index}.${path}`, message }],
  });
  const handle = client.workflow.getHandle(workflowId);
  try {
    const described = await handle.describe();
    const ofCampaign =
      described.memo?.campaignId === campaignId ||
      described.typedSearchAttributes.get(CampaignIdAttribute) === campaignId;
    if (!ofCampaign) return refused('workflowId', `is not a run of campaign ${campaignId}`);
    const unchanged: CampaignReviewResult = { workflowId, effect: 'unchanged', decided: 0 };
    // "Approve all" meets runs decided meanwhile (a listing lags a little): nothing to do there.
    if (described.status.name !== 'RUNNING')
      return 'decisions' in entry ? refused('workflowId', 'the run has already ended') : unchanged;
    const decisions = 'decisions' in entry ? entry.decisions : await everyStyle(handle, entry.decision);
    if (decisions.length === 0) return unchanged;
    const answer = await submitReview(
      client,
      workflowId,
      { decisions },
      {
        ...options,
        ...(options.requestId ? { requestId: `${options.requestId}/${workflowId}` } : {}),
      },
    );
    return {
      workflowId,
      effect: 'decided',
      decided: answer.results.filter((r) => r.effect !== 'repeated').length,
      review: answer.review,
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      return refused('workflowId', `is not a run of campaign ${campaignId}`);
    if (err instanceof InputError) {
      return {
        workflowId,
        effect: 'refused',
        decided: 0,
        issues: err.issues.map((issue) => ({ ...issue, path: `reviews.${index}.${issue.path}` })),
      };
    }
    throw err;
  }
}

/** The decision for every style under review (its current order named) or still to be generated. */
async function everyStyle(
  handle: ReturnType<Client['workflow']['getHandle']>,
  decision: 'approve' | 'reject',
): Promise<ReviewDecision[]> {
  const progress = await handle.query(progressQuery);
  return (progress.review?.styles ?? []).flatMap((style): ReviewDecision[] => {
    if (style.state === 'awaiting')
      return [
        {
          styleId: style.styleId,
          decision,
          ...(style.orderId !== undefined ? { orderId: style.orderId } : {}),
        },
      ];
    if (style.state === 'pending' && style.kept === undefined) return [{ styleId: style.styleId, decision }];
    return [];
  });
}

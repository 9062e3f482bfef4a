/**
 * The provider rate controller: one long-running workflow per provider task queue (its id is the
 * queue's, so every worker that signals-with-start it reaches the same run). The provider workers
 * report their answers to it about once a second each (src/worker/provider-answer-reporter.ts); it
 * sums them over a one-second sample, runs the control law (granted-rate-law.ts) and sets the
 * queue's rate limit through Temporal's task queue configuration, which binds every worker.
 */
import {
  condition,
  log,
  makeContinueAsNewFunc,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { GrantedRateActivities } from '../activities/granted-rate-activities';
import {
  grantedRateQuery,
  providerAnswersSignal,
  type GrantedRateInput,
  type GrantedRateView,
} from '../src/contracts/granted-rate';
import type { ProviderAnswers } from '../src/contracts/granted-rate-state';
import { initialGrantedRate, nextGrantedRate, sampleOfReports } from './granted-rate-law';

const { setProviderQueueRate } = proxyLocalActivities<GrantedRateActivities>({
  startToCloseTimeout: '10 seconds',
  // A server that refuses the change (an older version, a key without the permission) must not stop
  // the controller: the next sample tries again.
  retry: { initialInterval: '1 second', maximumInterval: '5 seconds', maximumAttempts: 3 },
});

/** Answers are summed over this long before the rate moves. */
const SAMPLE_MS = 1_000;
/** A change smaller than this share of the rate is not sent to the server (the next sample will be). */
const MIN_CHANGE_SHARE = 0.01;
/** Continue as new before the history grows past this many events. */
const HISTORY_EVENTS_SOFT_LIMIT = 4_000;

export async function providerGrantedRate(input: GrantedRateInput): Promise<void> {
  let state = input.carried ?? initialGrantedRate(input.ceiling);
  let reason = input.carried ? 'continued' : 'started at the ceiling';
  const pending: ProviderAnswers[] = [];
  setHandler(providerAnswersSignal, (answers) => void pending.push(answers));
  setHandler(grantedRateQuery, (): GrantedRateView => ({
    rate: state.rate,
    ceiling: state.ceiling,
    ...(state.knee !== undefined ? { knee: state.knee } : {}),
    rateLimitedTotal: state.rateLimitedTotal,
    acceptedTotal: state.acceptedTotal,
    reason,
  }));

  let applied: number | undefined;
  const apply = async (rate: number) => {
    try {
      await setProviderQueueRate({
        providerTaskQueue: input.providerTaskQueue,
        rate,
        ceiling: state.ceiling,
        reason,
      });
      applied = rate;
    } catch (err) {
      log.warn('the provider queue rate limit was not set', { rate, error: String(err) });
    }
  };
  // The queue's limit is set at every start: the server keeps it across runs, but not necessarily this one's.
  await apply(state.rate);

  // Pinned to the worker version it started on, like every run; the next run starts on the version
  // current then.
  const continueOnCurrentVersion = makeContinueAsNewFunc<typeof providerGrantedRate>({
    initialVersioningBehavior: 'AUTO_UPGRADE',
  });
  const versionChanged = () => workflowInfo().targetWorkerDeploymentVersionChanged === true;

  for (;;) {
    await condition(() => pending.length > 0 || versionChanged());
    if (pending.length === 0)
      await continueOnCurrentVersion({ ...input, ceiling: state.ceiling, carried: state });
    // The sample fills about a second from where the first report's counts start (not from the end
    // of a silence). A 429 is acted on at once: waiting for the rest of the sample would only add 429s.
    const startedAt = Date.now() - Math.max(...pending.map((a) => a.windowMs));
    const rest = startedAt + SAMPLE_MS - Date.now();
    if (rest > 0 && !pending.some((a) => a.rateLimited > 0)) {
      await condition(() => pending.some((a) => a.rateLimited > 0), rest);
    }
    const sample = sampleOfReports(pending.splice(0), state.ceiling);
    const decision = nextGrantedRate(state, sample, Date.now());
    state = decision.state;
    reason = decision.reason;
    if (
      applied === undefined ||
      state.rate < applied ||
      Math.abs(state.rate - applied) > applied * MIN_CHANGE_SHARE
    ) {
      await apply(state.rate);
    }
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > HISTORY_EVENTS_SOFT_LIMIT || versionChanged()) {
      // Reports that arrive meanwhile reach the next run (a signal to a closing run makes the server retry the task).
      await continueOnCurrentVersion({ ...input, ceiling: state.ceiling, carried: state });
    }
  }
}

import type { ResolvedSimulatorOptions } from './options';
import type { OrderRecord, OrderStatus, RunPlan } from './state-schema';

/** Share of a wall-mode run spent in STARTED before it shows IN_PROGRESS (a queue, as on the real service). */
const STARTED_SHARE = 0.1;

function plannedOutcome(
  order: OrderRecord,
  options: ResolvedSimulatorOptions,
): Pick<RunPlan, 'outcome' | 'failureMessage'> {
  if (order.kind === 'model') {
    return options.trainingOutcome === 'ERROR'
      ? {
          outcome: 'ERROR',
          failureMessage: 'training failed: no usable face was found in the training images',
        }
      : { outcome: 'DONE', failureMessage: '' };
  }
  const failing = order.styles.find((style) => options.failStyles.includes(style));
  return failing === undefined
    ? { outcome: 'DONE', failureMessage: '' }
    : { outcome: 'ERROR', failureMessage: `generation failed: style ${failing} could not be rendered` };
}

/** Fixes how and when the order will finish, from the options in force at the moment it is run. */
export function planRun(order: OrderRecord, options: ResolvedSimulatorOptions, now: number): RunPlan {
  const outcome = plannedOutcome(order, options);
  const training = order.kind === 'model';
  const progression = options.progression;
  if (progression.mode === 'wall') {
    const byStyle = order.styles.map((style) => progression.generationMsByStyle[String(style)]);
    const durationMs = training
      ? progression.trainingMs
      : (byStyle.find((ms) => ms !== undefined) ?? progression.generationMs);
    return { mode: 'wall', startedAt: now, durationMs, ...outcome };
  }
  const callsNeeded = training ? progression.trainingCalls : progression.generationCalls;
  return { mode: 'calls', callsNeeded, callsSeen: 0, ...outcome };
}

/** 0 to 1: how far the run has come. */
function fractionDone(plan: RunPlan, now: number): number {
  if (plan.mode === 'calls') return Math.min(1, plan.callsSeen / plan.callsNeeded);
  if (plan.durationMs === 0) return 1;
  return Math.min(1, Math.max(0, (now - plan.startedAt) / plan.durationMs));
}

function statusAt(plan: RunPlan, now: number): OrderStatus {
  const fraction = fractionDone(plan, now);
  if (fraction >= 1) return plan.outcome;
  if (plan.mode === 'calls') return plan.callsSeen === 0 ? 'STARTED' : 'IN_PROGRESS';
  return fraction < STARTED_SHARE ? 'STARTED' : 'IN_PROGRESS';
}

/** Brings a running order's status up to date; true when it changed. */
export function refreshStatus(order: OrderRecord, now: number): boolean {
  if (order.run === null || order.status === 'DONE' || order.status === 'ERROR') return false;
  const next = statusAt(order.run, now);
  if (next === order.status) return false;
  order.status = next;
  return true;
}

/** Calls mode: a status call moves the order one step. No effect in wall mode or once finished. */
export function advanceOnStatusCall(order: OrderRecord): boolean {
  const plan = order.run;
  if (plan === null || plan.mode !== 'calls' || order.status === 'DONE' || order.status === 'ERROR')
    return false;
  plan.callsSeen = Math.min(plan.callsNeeded, plan.callsSeen + 1);
  return true;
}

export function progressPercent(order: OrderRecord, now: number): number {
  if (order.status === 'DONE' || order.status === 'ERROR') return 100;
  if (order.run === null) return 0;
  // Never 100 before the order is finished: clients may read 100 as "done".
  return Math.min(99, Math.floor(fractionDone(order.run, now) * 100));
}

export function statusMessage(order: OrderRecord): string {
  const work = order.kind === 'model' ? 'training' : 'generation';
  switch (order.status) {
    case 'CREATED':
      return `${order.kind === 'model' ? 'model' : 'order'} created; waiting to be run`;
    case 'STARTED':
      return `${work} queued`;
    case 'IN_PROGRESS':
      return `${work} in progress`;
    case 'DONE':
      return order.kind === 'model' ? 'training complete' : 'avatars ready';
    case 'ERROR':
      return order.run?.failureMessage ?? `${work} failed`;
  }
}

/**
 * The auto in-flight window per tenant: a tenant's campaigns share the tenant's window, so a
 * tenant that splits its work into five campaigns keeps as many subjects in flight as one with a
 * single campaign, and the provider queue's fairness (by tenant, weighted) has each tenant's
 * demand in proportion to its weight to divide. Pure and deterministic, as the controller.
 *
 * Each campaign runs the controller (in-flight-window.ts) on behalf of its tenant, per unit of
 * weight: it scales what it sees by `campaigns ÷ weight` (its siblings are taken to look like it),
 * and holds `weight ÷ campaigns` of the result. Every campaign then sees the same queue-wide
 * signals and the same scaled counts, so all of them track one window per unit of weight, and a
 * tenant keeps `weight ×` that window in flight however many campaigns it runs. The number of the
 * tenant's open campaigns is read with the queue's signals (an activity result, so replay sees the
 * same), and carried through continue-as-new with the window.
 */
import type { WindowSample, WindowTuning } from '@avatar-pipeline/client/contracts/campaign/window-state';

export interface TenantShareOfWindow {
  /** The tenant's fairness weight. */
  weight: number;
  /** The tenant's open campaigns (this one included), at least 1. */
  campaigns: number;
}

/** Campaign counts → window-per-unit-of-weight counts. */
function scale(share: TenantShareOfWindow): number {
  return Math.max(1, share.campaigns) / share.weight;
}

/** What this campaign saw, as the tenant's window per unit of weight would have seen it. */
export function tenantSample(sample: WindowSample, share: TenantShareOfWindow): WindowSample {
  const k = scale(share);
  return {
    ...sample,
    inFlight: sample.inFlight * k,
    completions: sample.completions * k,
    ...(sample.waiting !== undefined ? { waiting: sample.waiting * k } : {}),
    ...(sample.workerCapacity !== undefined ? { workerCapacity: sample.workerCapacity * k } : {}),
  };
}

/**
 * The bounds of the campaign's own window, as bounds of the window per unit of weight. The
 * starting size is not scaled: it is per unit of weight already, alike for every campaign.
 */
export function tenantTuning(tuning: WindowTuning, share: TenantShareOfWindow): WindowTuning {
  const k = scale(share);
  return { ...tuning, cap: tuning.cap * k, floor: tuning.floor * k };
}

/** The part of the window per unit of weight that this campaign holds, within its own bounds. */
export function campaignPart(
  windowPerWeight: number,
  share: TenantShareOfWindow,
  tuning: Pick<WindowTuning, 'cap' | 'floor'>,
): number {
  const part = Math.round(windowPerWeight / scale(share));
  return Math.min(tuning.cap, Math.max(tuning.floor, part));
}

import {
  DEFAULT_WINDOW_TUNING,
  initialWindow,
  nextWindow,
} from '../../../workflows/campaign/window-controller';
import type { WindowSample, WindowState } from '@avatar-pipeline/client/contracts/campaign/window-state';
import { campaignShare } from '@avatar-pipeline/client/contracts/campaign/campaign-share';
import {
  campaignPart,
  tenantSample,
  tenantTuning,
  type TenantShareOfWindow,
} from '../../../workflows/campaign/tenant-window';

/**
 * Campaigns of two tenants sample the same provider queue; each holds its part of its tenant's
 * window. Whatever the number of campaigns, a tenant keeps in flight its weight's share.
 */
function simulate(
  tenants: Record<string, TenantShareOfWindow>,
  signals: (step: number) => Partial<WindowSample>,
) {
  const tuning = { ...DEFAULT_WINDOW_TUNING, cap: 2000 };
  const state: Record<string, WindowState> = {};
  const part: Record<string, number> = {};
  for (const name of Object.keys(tenants)) {
    state[name] = initialWindow(tuning);
    part[name] = campaignPart(state[name].size, tenants[name]!, tuning);
  }
  for (let step = 0; step < 12; step++) {
    for (const [name, share] of Object.entries(tenants)) {
      const inFlight = part[name]!;
      const sample: WindowSample = {
        backlogCount: 0,
        backlogAgeMs: 0,
        requests: 0,
        rateLimited: 0,
        errors: 0,
        completions: inFlight / 10,
        inFlight,
        waiting: 10_000,
        elapsedMs: 10_000,
        quotaRps: 20,
        dispatchRate: 10,
        ...signals(step),
      };
      state[name] = nextWindow(state[name]!, tenantSample(sample, share), tenantTuning(tuning, share));
      part[name] = campaignPart(state[name].size, share, tuning);
    }
  }
  return Object.fromEntries(
    Object.entries(tenants).map(([name, share]) => [name, part[name]! * share.campaigns]),
  );
}

describe('the in-flight window per tenant', () => {
  const growingThenHolding = (step: number) => (step < 6 ? {} : { backlogCount: 40, backlogAgeMs: 3_000 });

  test('a tenant with five campaigns keeps as many in flight as a tenant with one (equal weights)', () => {
    const held = simulate(
      { a: { weight: 1, campaigns: 5 }, b: { weight: 1, campaigns: 1 } },
      growingThenHolding,
    );
    expect(held['b']!).toBeGreaterThan(20);
    expect(Math.abs(held['a']! - held['b']!)).toBeLessThanOrEqual(5);
  });

  test('weights 3:1 keep three times as many in flight', () => {
    const held = simulate(
      { a: { weight: 3, campaigns: 5 }, b: { weight: 1, campaigns: 1 } },
      growingThenHolding,
    );
    expect(held['a']! / held['b']!).toBeGreaterThan(2.7);
    expect(held['a']! / held['b']!).toBeLessThan(3.3);
  });

  test('a lone campaign of weight 1 is sized as before tenants', () => {
    const share = { weight: 1, campaigns: 1 };
    const sample: WindowSample = {
      backlogCount: 3,
      backlogAgeMs: 500,
      requests: 200,
      rateLimited: 0,
      errors: 0,
      completions: 4,
      inFlight: 10,
      waiting: 50,
      elapsedMs: 10_000,
      quotaRps: 20,
    };
    const state = initialWindow();
    expect(
      nextWindow(state, tenantSample(sample, share), tenantTuning(DEFAULT_WINDOW_TUNING, share)),
    ).toEqual(nextWindow(state, sample));
  });

  test("each campaign's part stays within its own floor and cap", () => {
    const bounds = { floor: 2, cap: 30 };
    expect(campaignPart(5, { weight: 1, campaigns: 10 }, bounds)).toBe(2);
    expect(campaignPart(500, { weight: 1, campaigns: 2 }, bounds)).toBe(30);
    expect(campaignPart(40, { weight: 1, campaigns: 4 }, bounds)).toBe(10);
  });
});

describe('campaignShare', () => {
  test('the tenant is the fairness key; its weight applies; the priority is kept at or below its ceiling', () => {
    expect(campaignShare('acme')).toEqual({ fairnessKey: 'acme', fairnessWeight: 1, priorityKey: 4 });
    expect(campaignShare('acme', { fairnessWeight: 3, priorityCeiling: 3 })).toEqual({
      fairnessKey: 'acme',
      fairnessWeight: 3,
      priorityKey: 4,
    });
    // The operator's own choice (CLI) is kept to the ceiling too.
    expect(campaignShare('acme', { fairnessWeight: 3, priorityCeiling: 4 }, { priorityKey: 1 })).toEqual({
      fairnessKey: 'acme',
      fairnessWeight: 3,
      priorityKey: 4,
    });
    expect(campaignShare('default', undefined, { priorityKey: 2, fairnessWeight: 0.5 })).toEqual({
      fairnessKey: 'default',
      fairnessWeight: 0.5,
      priorityKey: 2,
    });
  });
});

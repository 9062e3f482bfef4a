import {
  budgetSchema,
  costsSchema,
  maxRunCost,
  type OrderCharge,
} from '@avatar-pipeline/client/contracts/usage';
import { MeterLedger } from '../../../workflows/budget/meter-ledger';

const costs = costsSchema.parse({ training: 10, generation: 2 });
const DEC = Date.UTC(2026, 11, 2, 12);
const JAN = Date.UTC(2027, 0, 3, 12);

function ledgerWith(credits: number, extra: Record<string, unknown> = {}): MeterLedger {
  const ledger = MeterLedger.empty('acme');
  ledger.setBudget(budgetSchema.parse({ credits, ...extra }));
  return ledger;
}

function order(
  key: string,
  kind: OrderCharge['kind'],
  runId: string,
  at = DEC,
  campaignId?: string,
): OrderCharge {
  return {
    key,
    kind,
    runId,
    credits: kind === 'training' ? costs.training : costs.generation,
    at,
    ...(campaignId ? { campaignId } : {}),
  };
}

describe('a run reserves its most, and its orders spend from the reservation', () => {
  it('a 25-credit budget holds one run of a training and two styles (14), not a second', () => {
    const ledger = ledgerWith(25);
    const cost = maxRunCost(costs, { trains: true, styles: 2 });
    expect(cost).toBe(14);
    expect(ledger.reserve({ runId: 'r1', credits: cost }, DEC).reserved).toBe(true);
    const second = ledger.reserve({ runId: 'r2', credits: cost }, DEC);
    expect(second).toMatchObject({ reserved: false, usage: { spent: 0, reserved: 14, left: 11 } });
    expect(second.reserved === false && second.reason).toBe(
      'tenant "acme" has a budget of 25 credits a month (2026-12): 0 spent and 14 reserved leave 11, and this needs 14',
    );
  });

  it('spent orders move from reserved to spent; settling frees what was not spent', () => {
    const ledger = ledgerWith(25);
    ledger.reserve({ runId: 'r1', credits: 14 }, DEC);
    ledger.charge(order('model:1001', 'training', 'r1'));
    expect(ledger.usage(DEC)).toMatchObject({ spent: 10, reserved: 4, left: 11 });
    ledger.charge(order('order:1', 'generation', 'r1'));
    ledger.settle('r1');
    expect(ledger.usage(DEC)).toMatchObject({ spent: 12, reserved: 0, left: 13 });
    expect(ledger.usage(DEC).byKind).toEqual({
      training: { orders: 1, credits: 10 },
      generation: { orders: 1, credits: 2 },
      regeneration: { orders: 0, credits: 0 },
    });
  });

  it('a repeated reservation for the same run reserves nothing more', () => {
    const ledger = ledgerWith(25);
    ledger.reserve({ runId: 'r1', credits: 14 }, DEC);
    expect(ledger.reserve({ runId: 'r1', credits: 14 }, DEC)).toMatchObject({
      reserved: true,
      usage: { reserved: 14 },
    });
  });

  it('a soft budget lets a start past it through, and reports nothing left', () => {
    const ledger = ledgerWith(10, { mode: 'soft' });
    expect(ledger.reserve({ runId: 'r1', credits: 14 }, DEC)).toMatchObject({
      reserved: true,
      usage: { left: 0 },
    });
  });

  it('asked under the budget a start brings, the ledger answers by that one, changing nothing', () => {
    const ledger = ledgerWith(10);
    expect(ledger.refusalOf({ runId: 'r1', credits: 14 }, DEC)).toMatch(/budget of 10 credits/);
    expect(ledger.refusalOf({ runId: 'r1', credits: 14 }, DEC, { budget: undefined })).toBeUndefined();
    expect(
      ledger.refusalOf({ runId: 'r1', credits: 14 }, DEC, { budget: budgetSchema.parse({ credits: 20 }) }),
    ).toBeUndefined();
    expect(ledger.usage(DEC)).toMatchObject({ reserved: 0, left: 10 });
  });

  it('without a budget nothing is refused and usage has no budget or left', () => {
    const ledger = MeterLedger.empty('acme');
    expect(ledger.reserve({ runId: 'r1', credits: 1e6 }, DEC).reserved).toBe(true);
    expect(ledger.usage(DEC)).not.toHaveProperty('left');
  });
});

describe('an order counts once', () => {
  it('the same key again (a retry, a reconciled write, a repeated signal) adds nothing', () => {
    const ledger = ledgerWith(100);
    expect(ledger.charge(order('model:1001', 'training', 'r1')).counted).toBe(true);
    expect(ledger.charge(order('model:1001', 'training', 'r1')).counted).toBe(false);
    expect(ledger.usage(DEC).spent).toBe(10);
  });

  it('counts by campaign', () => {
    const ledger = ledgerWith(100);
    ledger.charge(order('model:1', 'training', 'c.s1', DEC, 'spring'));
    ledger.charge(order('model:2', 'training', 'c.s2', DEC, 'spring'));
    ledger.charge(order('model:3', 'training', 'r3'));
    expect(ledger.usage(DEC).byCampaign).toEqual({ spring: { orders: 2, credits: 20 } });
  });
});

describe('periods and alerts', () => {
  it('a monthly budget starts again in the next month, keeping the last month’s keys', () => {
    const ledger = ledgerWith(25);
    ledger.charge(order('model:1', 'training', 'r1', DEC));
    ledger.charge(order('model:2', 'training', 'r2', JAN));
    expect(ledger.usage(JAN)).toMatchObject({ period: '2027-01', spent: 10, left: 15 });
    expect(ledger.charge(order('model:1', 'training', 'r1', JAN)).counted).toBe(false);
  });

  it('announces each alert percentage once a period, in order', () => {
    const ledger = ledgerWith(20);
    expect(ledger.charge(order('model:1', 'training', 'r1')).crossed).toEqual([50]);
    expect(ledger.charge(order('order:1', 'generation', 'r1')).crossed).toEqual([]);
    expect(ledger.charge(order('model:2', 'training', 'r2')).crossed).toEqual([80, 100]);
    expect(ledger.charge(order('order:2', 'generation', 'r2')).crossed).toEqual([]);
    expect(ledger.charge(order('model:3', 'training', 'r3', JAN)).crossed).toEqual([50]);
  });

  it('a budget with no period counts everything in one', () => {
    const ledger = ledgerWith(25, { period: 'none' });
    ledger.charge(order('model:1', 'training', 'r1', DEC));
    ledger.charge(order('model:2', 'training', 'r2', JAN));
    expect(ledger.usage(JAN)).toMatchObject({ period: 'all', spent: 20, left: 5 });
  });
});

describe('exhaustion', () => {
  test('is announced once a period, when spent and reserved reach the budget, and again in the next period', () => {
    const ledger = ledgerWith(24);
    expect(ledger.reserve({ runId: 'r1', credits: 12 }, DEC).reserved).toBe(true);
    expect(ledger.newlyExhausted(DEC)).toBe(false);
    expect(ledger.reserve({ runId: 'r2', credits: 12 }, DEC).reserved).toBe(true);
    expect(ledger.newlyExhausted(DEC)).toBe(true);
    expect(ledger.newlyExhausted(DEC)).toBe(false);
    ledger.settle('r1');
    ledger.settle('r2');
    ledger.charge(order('model:1', 'training', 'r3', JAN));
    ledger.charge(order('order:2', 'generation', 'r3', JAN));
    expect(ledger.newlyExhausted(JAN)).toBe(false);
    ledger.charge(order('model:3', 'training', 'r4', JAN));
    ledger.charge(order('order:4', 'generation', 'r4', JAN));
    expect(ledger.newlyExhausted(JAN)).toBe(true);
  });

  test('never without a budget', () => {
    const ledger = MeterLedger.empty('acme');
    ledger.charge(order('model:1', 'training', 'r1'));
    expect(ledger.newlyExhausted(DEC)).toBe(false);
  });

  test('an order of a campaign subject counts for its campaign through the run’s reservation', () => {
    const ledger = ledgerWith(100);
    ledger.reserve({ runId: 'acme.spring/p1', credits: 12, campaignId: 'acme.spring' }, DEC);
    ledger.charge(order('model:1', 'training', 'acme.spring/p1'));
    expect(ledger.usage(DEC).byCampaign).toEqual({ 'acme.spring': { orders: 1, credits: 10 } });
  });
});

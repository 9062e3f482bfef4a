import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CampaignSummary } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import type { OrderStats, SimulatorStats } from '../../../src/simulator';
import { expectNoOrdersOfNoSubject, traceDuplicateWrites } from '../../cluster/checks/write-trace';

function order(
  id: number,
  kind: OrderStats['kind'],
  parent = 0,
  status: OrderStats['status'] = 'DONE',
): OrderStats {
  return {
    id,
    parent,
    kind,
    styles: [3],
    gender: 1,
    status,
    uploads: 0,
    runs: 1,
    runAttempts: 1,
    selects: 0,
    statusCalls: 0,
  };
}

/** Two subjects, each with its model and one generation order, and one planted model nobody holds. */
const summary = {
  workflowId: 'campaign-1',
  status: 'COMPLETED',
  total: 2,
  succeeded: 2,
  failed: 0,
  partial: 0,
  cancelled: 0,
  startedAt: '2026-01-01T00:00:00Z',
  finishedAt: '2026-01-01T00:10:00Z',
  subjects: [
    { subjectId: 's1', status: 'DONE', workflowId: 'pipe-s1', modelId: 1001 },
    { subjectId: 's2', status: 'DONE', workflowId: 'pipe-s2', modelId: 1003 },
  ],
} satisfies CampaignSummary;
const stats = {
  orders: [
    order(1001, 'model'),
    order(1002, 'model', 0, 'CREATED'),
    order(1003, 'model'),
    order(1004, 'generation', 1001),
    order(1005, 'generation', 1003),
  ],
} as SimulatorStats;

/**
 * The cluster tier's exact-count check names the provider orders that fit no subject (an orphan a
 * lost answer left behind), and its trace ties each to the write whose answer carried its id.
 */
describe('orders that fit no subject', () => {
  test('the check fails naming the planted orphan and nothing else', () => {
    expect(() => expectNoOrdersOfNoSubject(summary, stats)).toThrow(
      'provider orders that fit no subject: model 1002 styles [3] CREATED',
    );
    expect(() =>
      expectNoOrdersOfNoSubject(summary, {
        orders: stats.orders.filter((o) => o.id !== 1002),
      } as SimulatorStats),
    ).not.toThrow();
  });

  test('the trace names the orphan and the write that returned its id', () => {
    const logDir = mkdtempSync(path.join(tmpdir(), 'write-trace-'));
    try {
      const entry = (fields: Record<string, unknown>) =>
        JSON.stringify({
          time: '2026-01-01T00:00:01Z',
          activityType: 'createModel',
          activityId: '1',
          ...fields,
        });
      writeFileSync(
        path.join(logDir, 'worker-a.log'),
        [
          entry({
            message: 'provider call',
            workflowId: 'pipe-s2',
            attempt: 1,
            endpoint: '/order/create/model',
            method: 'POST',
            outcome: 'ok',
            httpStatus: 200,
            durationMs: 5,
            resultId: 1002,
          }),
          entry({
            message: 'provider call',
            workflowId: 'pipe-s2',
            attempt: 2,
            endpoint: '/order/create/model',
            method: 'POST',
            outcome: 'ok',
            httpStatus: 200,
            durationMs: 5,
            resultId: 1003,
          }),
        ].join('\n'),
      );
      const trace = traceDuplicateWrites(logDir, summary, stats, []);
      expect(trace).toContain('orders that fit no subject:');
      expect(trace).toContain('model 1002 styles [3] CREATED: returned by');
      expect(trace).toMatch(
        /createModel#1 attempt 1: provider call POST \/order\/create\/model ok 200 5 ms -> id 1002 \(pipe-s2\)/,
      );
      expect(trace).not.toContain('model 1003 styles');
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FsBlobStore } from '../../../src/storage';
import { DeliveryLog } from '@avatar-pipeline/client/webhooks/delivery-log';
import { newEndpointId } from '@avatar-pipeline/client/webhooks/endpoint-store';
import { SAMPLE_EVENT } from '../../helpers/webhook-attempt';

const DAY = 24 * 60 * 60 * 1000;

describe('the webhook delivery log', () => {
  let dir: string;
  let log: DeliveryLog;
  const endpoint = newEndpointId();
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'delivery-log-'));
    log = new DeliveryLog(new FsBlobStore(dir), 14);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const at = (ms: number) => new Date(ms).toISOString();

  it('lists every attempt with its status, latency and answer, filtered by run, event and failure', async () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    await log.record('default', endpoint, SAMPLE_EVENT, {
      attempt: 1,
      at: at(t0),
      statusCode: 503,
      latencyMs: 12,
      response: 'down',
      ok: false,
    });
    await log.record('default', endpoint, SAMPLE_EVENT, {
      attempt: 2,
      at: at(t0 + 5_000),
      statusCode: 200,
      latencyMs: 8,
      response: 'ok',
      ok: true,
    });
    const all = await log.attempts('default', endpoint, {}, t0 + DAY);
    expect(all.map((a) => [a.attempt, a.statusCode, a.ok, a.state])).toEqual([
      [2, 200, true, 'delivered'],
      [1, 503, false, 'delivered'],
    ]);
    expect(all[1]).toMatchObject({
      webhookId: SAMPLE_EVENT.id,
      event: SAMPLE_EVENT.type,
      run: 'wf-1',
      latencyMs: 12,
    });
    expect(await log.attempts('default', endpoint, { failed: true }, t0 + DAY)).toHaveLength(1);
    expect(await log.attempts('default', endpoint, { run: 'wf-2' }, t0 + DAY)).toHaveLength(0);
    expect(await log.attempts('default', endpoint, { event: 'pipeline.cancelled' }, t0 + DAY)).toHaveLength(
      2,
    );
    // Past the retention the entry is gone.
    expect(await log.attempts('default', endpoint, {}, t0 + 15 * DAY)).toHaveLength(0);
    expect(await log.get('default', endpoint, SAMPLE_EVENT.id)).toBeUndefined();
  });

  it("erases the matching deliveries of every endpoint of the tenant, and only the tenant's", async () => {
    const other = newEndpointId();
    const ok = { attempt: 1, at: at(Date.now()), latencyMs: 1, ok: true };
    const kept = { ...SAMPLE_EVENT, id: 'evt_00000000-0000-4000-8000-000000000002', source: 'wf-2' };
    await log.record('default', endpoint, SAMPLE_EVENT, ok);
    await log.record('default', other, SAMPLE_EVENT, ok);
    await log.record('default', endpoint, kept, ok);
    await log.record('acme', endpoint, SAMPLE_EVENT, ok);
    const erased = await log.erase('default', (event) => event.source === 'wf-1');
    expect(erased.sort((a, b) => a.endpointId.localeCompare(b.endpointId))).toEqual(
      [endpoint, other].sort().map((endpointId) => ({ endpointId, deliveryId: SAMPLE_EVENT.id })),
    );
    expect(await log.get('default', endpoint, SAMPLE_EVENT.id)).toBeUndefined();
    expect(await log.get('default', other, SAMPLE_EVENT.id)).toBeUndefined();
    expect(await log.get('default', endpoint, kept.id)).toBeDefined();
    expect(await log.get('acme', endpoint, SAMPLE_EVENT.id)).toBeDefined();
  });
});

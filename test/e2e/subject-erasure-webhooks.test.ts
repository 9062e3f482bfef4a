import { WorkflowNotFoundError } from '@temporalio/client';
import { redeliveryWorkflowId } from '@avatar-pipeline/client/contracts/webhook-delivery';
import type { WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';
import { startTestHttpServer, type TestHttpServer } from '../fixtures/http-test-server';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { startInProcessStack, type InProcessStack } from '../helpers/in-process-stack';
import { apiCaller } from '../helpers/test-api';

/** A tenant of this file's own, so that no other file's runs deliver to its endpoint. */
const TENANT = `hooks-${Date.now().toString(36)}`;
const TOKEN = 'erasure-hooks-token-0123456789';

interface Attempt {
  deliveryId: string;
  webhookId: string;
  event: string;
  run: string;
  ok: boolean;
}

describe('erasing a subject from the webhook delivery log (dev server, workers, simulator, API)', () => {
  let stack: InProcessStack;
  let receiver: TestHttpServer;

  beforeAll(async () => {
    receiver = await startTestHttpServer((_req, res) => res.writeHead(200).end('ok'));
    stack = await startInProcessStack({
      name: 'erasure-hooks',
      tokens: [`${TENANT}:${TOKEN}`],
      selfies: 2,
      simulator: { trainingMs: 200, generationMs: 150, avatarsPerOrder: 1 },
      callbacks: { privateHosts: ['127.0.0.1'], webhookKey: 'webhook-server-key-for-tests-0123456789' },
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const call = apiCaller(() => stack.base, TOKEN);
  const heard = () => receiver.requests.map((r) => JSON.parse(r.body) as WebhookEnvelope);
  const waitFor = async (what: string, done: () => Promise<boolean> | boolean): Promise<void> => {
    for (let i = 0; !(await done()); i++) {
      if (i > 300) throw new Error(`${what} did not happen`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  test("once xavier is erased, the log lists none of his deliveries, the report counts them, and a redelivery of one is refused and sends nothing; yara's stay", async () => {
    const registered = await call('POST', '/v1/webhooks', { url: `${receiver.origin}/hooks`, events: ['*'] });
    expect(registered.status).toBe(201);
    const endpointId = (registered.body as { id: string }).id;
    const deliveriesUrl = `/v1/webhooks/${endpointId}/deliveries`;
    const attempts = async (query = ''): Promise<Attempt[]> => {
      const answer = await call('GET', `${deliveriesUrl}?limit=500${query}`);
      expect(answer.status).toBe(200);
      return (answer.body as { attempts: Attempt[] }).attempts;
    };
    const start = async (subjectId: string): Promise<string> => {
      const started = await call('POST', '/v1/pipelines', {
        images: stack.selfies.files,
        styles: [3],
        gender: 1,
        subjectId,
        polling: FAST_POLLING,
      });
      expect(started.status).toBe(202);
      return (started.body as { workflowId: string }).workflowId;
    };
    const xavierRun = await start('xavier');
    const yaraRun = await start('yara');
    // Each run's last event delivered (and logged) before anything is erased.
    for (const run of [xavierRun, yaraRun]) {
      await waitFor(`${run}'s pipeline.completed delivery`, async () =>
        (await attempts(`&run=${encodeURIComponent(run)}&event=pipeline.completed`)).some((a) => a.ok),
      );
    }
    const xavierDeliveries = [
      ...new Set((await attempts()).filter((a) => a.run === xavierRun).map((a) => a.deliveryId)),
    ];
    expect(xavierDeliveries.length).toBeGreaterThanOrEqual(3);
    const yaraDeliveries = new Set(
      (await attempts()).filter((a) => a.run === yaraRun).map((a) => a.deliveryId),
    );
    // A redelivery of one of xavier's, sent before the erasure: its workflow's history holds the event.
    const chosen = xavierDeliveries[0]!;
    const redeliverUrl = (deliveryId: string) => `${deliveriesUrl}/${deliveryId}/redeliver`;
    const heardOf = (webhookId: string) => heard().filter((e) => e.id === webhookId).length;
    const before = heardOf(chosen);
    expect((await call('POST', redeliverUrl(chosen))).status).toBe(202);
    await waitFor('the redelivery before the erasure', () => heardOf(chosen) === before + 1);

    const erased = await call('DELETE', '/v1/subjects/xavier');
    expect(erased.status).toBe(200);
    const report = erased.body as { webhookDeliveries: number; webhookRedeliveries: number };
    expect({ deliveries: report.webhookDeliveries, redeliveries: report.webhookRedeliveries }).toEqual({
      deliveries: xavierDeliveries.length,
      redeliveries: 1,
    });
    const heardBeforeErasure = receiver.requests.length;

    const after = await attempts();
    expect(after.filter((a) => a.run === xavierRun || xavierDeliveries.includes(a.deliveryId))).toEqual([]);
    expect(new Set(after.filter((a) => a.run === yaraRun).map((a) => a.deliveryId))).toEqual(yaraDeliveries);
    const refused = await call('POST', redeliverUrl(chosen));
    expect(refused.status).toBe(404);
    // Temporal deletes in the background, within moments: the redelivery workflow goes too.
    const redelivery = stack.env.client.workflow.getHandle(
      redeliveryWorkflowId({ tenant: TENANT, endpointId, deliveryId: chosen }),
    );
    await waitFor('the deletion of the redelivery workflow', () =>
      redelivery.describe().then(
        () => false,
        (err: unknown) => err instanceof WorkflowNotFoundError,
      ),
    );
    // A redelivery of yara's still runs and arrives; nothing of xavier's has come since the erasure.
    const yaras = [...yaraDeliveries][0]!;
    const yaraBefore = heardOf(yaras);
    expect((await call('POST', redeliverUrl(yaras))).status).toBe(202);
    await waitFor("the redelivery of yara's", () => heardOf(yaras) === yaraBefore + 1);
    const since = heard().slice(heardBeforeErasure);
    expect(since.filter((e) => e.source === xavierRun || xavierDeliveries.includes(e.id))).toEqual([]);
  }, 180_000);
});

import { randomUUID } from 'node:crypto';
import { startCampaign } from '@avatar-pipeline/client/campaign/campaigns';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { claimWorkflowId, DEFAULT_TENANT } from '@avatar-pipeline/client/contracts/workflow-ids';
import { TenantAttribute } from '@avatar-pipeline/client/contracts/search-attributes';
import { providerScope } from '../../src/worker/provider-scope';
import { FAST_POLLING } from '../helpers/e2e-pipeline';
import { startInProcessStack, type InProcessStack } from '../helpers/in-process-stack';
import { uniqueName } from '../helpers/temporal-env';
import { apiCaller } from '../helpers/test-api';
import { InputError } from '@avatar-pipeline/client/errors';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';

const TOKEN = 'internal-ids-token-0123456789';
/** The simulator's first order id: a fresh one hands out 1001, 1002, … */
const FIRST_MODEL_ID = 1001;

/**
 * Internal workflow ids (claims of provider orders, callback deliveries) can be neither taken by
 * a caller nor probed through the API.
 */
describe('internal workflow ids (dev server, workers, simulator, API)', () => {
  let stack: InProcessStack;
  /** Workflows this test started at internal ids, on a queue no worker polls; terminated at the end. */
  const squatters: string[] = [];
  const idleQueue = uniqueName('nobody-polls');

  beforeAll(async () => {
    stack = await startInProcessStack({
      name: 'internal-ids',
      tokens: [TOKEN],
      selfies: 1,
      simulator: { trainingMs: 300, generationMs: 200, avatarsPerOrder: 1 },
      archive: false,
    });
  });

  afterAll(async () => {
    for (const id of squatters) {
      await stack?.env.client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    }
    await stack?.stop();
  });

  const call = apiCaller(() => stack.base, TOKEN);

  /** Starts a workflow of `type` at `workflowId` that stays open (no worker polls its queue). */
  async function squat(workflowId: string, type: string): Promise<void> {
    // The caller's own tenant: only the workflow's type stands between it and the caller.
    await stack.env.client.workflow.start(type, {
      workflowId,
      taskQueue: idleQueue,
      args: [],
      typedSearchAttributes: [{ key: TenantAttribute, value: DEFAULT_TENANT }],
    });
    squatters.push(workflowId);
  }

  const scope = () => providerScope(stack.sim.url);

  test('campaigns cannot take claim ids, and a claim id held by anything else does not block pipelines', async () => {
    // A provider served at the root of its host has claim ids that pass the campaign id charset.
    const claimId = claimWorkflowId(new URL(stack.sim.url).host, FIRST_MODEL_ID);
    const [selfie] = stack.selfies.files as [string];
    // Through the API, and through the client package that the CLI uses.
    const refused = await call('POST', '/v1/campaigns', {
      campaignId: claimId,
      subjects: [{ subjectId: 'u1', gender: 1, styles: [3], selfies: [selfie] }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      issues: [
        { path: 'campaignId', message: expect.stringMatching(/must not start with .*"provider-claim:"/) },
      ],
    });
    await expect(
      startCampaign(
        stack.env.client,
        [{ subjectId: 'u1', gender: 1, styles: [3], images: [selfie], mainImageIndex: 0, row: 2 }],
        {
          ...stack.config.placement,
          store: new FsBlobStore(stack.blobDir),
          campaignId: `Provider-Claim:${new URL(stack.sim.url).host}:model:${FIRST_MODEL_ID + 1}`,
        },
      ),
    ).rejects.toBeInstanceOf(InputError);

    // What such campaigns did before: every claim id of the next models held by another workflow.
    for (let id = FIRST_MODEL_ID; id < FIRST_MODEL_ID + 8; id++)
      await squat(claimWorkflowId(scope(), id), WORKFLOW_TYPES.campaign);
    const pipeline = await startPipeline(
      stack.env.client,
      { images: [selfie], styles: [3], gender: 1, polling: FAST_POLLING },
      stack.config.placement,
    );
    const result = await pipeline.result();
    expect(result.modelId).toBe(FIRST_MODEL_ID);
    expect(result.generations.map((g) => g.status)).toEqual(['DONE']);
    // The order is still claimed once, at the id after the squatted one.
    const claim = await stack.env.client.workflow
      .getHandle(`${claimWorkflowId(scope(), FIRST_MODEL_ID)}/1`)
      .describe();
    expect(claim.type).toBe(WORKFLOW_TYPES.claim);
  }, 60_000);

  test('ids that are not a pipeline, or not a campaign, get exactly the unknown-id answer', async () => {
    const pipelineId = `default.avatar-pipeline-${randomUUID()}`;
    const claimId = claimWorkflowId(scope(), 99_999);
    const callbackId = `${pipelineId}/webhooks`;
    const campaignId = `default.${uniqueName('oracle-campaign')}`;
    await squat(pipelineId, WORKFLOW_TYPES.pipeline);
    await squat(claimId, WORKFLOW_TYPES.claim);
    await squat(callbackId, WORKFLOW_TYPES.webhookDelivery);
    await squat(campaignId, WORKFLOW_TYPES.campaign);

    /** The answer with the id asked for replaced, so answers about two ids compare. */
    const answer = async (method: string, url: (id: string) => string, id: string) => {
      const { status, body } = await call(method, url(encodeURIComponent(id)));
      return { status, body: JSON.parse(JSON.stringify(body).split(id).join('<id>')) as unknown };
    };
    const retry = (id: string) => `/v1/pipelines/${id}/retry`;
    const unknownRetry = await answer('POST', retry, `default.avatar-pipeline-${randomUUID()}`);
    expect(unknownRetry.status).toBe(404);
    for (const id of [claimId, callbackId, campaignId])
      expect({ id, ...(await answer('POST', retry, id)) }).toEqual({ id, ...unknownRetry });

    for (const url of [
      (id: string) => `/v1/campaigns/${id}`,
      (id: string) => `/v1/campaigns/${id}/summary`,
    ]) {
      const unknownCampaign = await answer('GET', url, uniqueName('no-such-campaign'));
      expect(unknownCampaign.status).toBe(404);
      for (const id of [claimId, callbackId, pipelineId])
        expect({ id, ...(await answer('GET', url, id)) }).toEqual({ id, ...unknownCampaign });
    }
  }, 60_000);
});

import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import {
  createClaimActivities,
  MAX_UNCLAIMED_OFFERS,
  type ClaimHolder,
  type DescribeWorkflow,
} from '../../../activities/claim-activities';
import type { ModelOffer } from '../../../src/contracts/provider-activity-results';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import {
  CLAIM_IDS_PER_ORDER,
  claimIdAt,
  claimWorkflowId,
} from '@avatar-pipeline/client/contracts/workflow-ids';
import { quietLogger } from '../../helpers/quiet-logger';

/**
 * findUnclaimed keeps the candidates a claim could still win, so the workflow spends a claim child
 * on those alone: an id nobody holds, or one whose walk past squatters reaches an id nobody holds.
 */
describe('findUnclaimed', () => {
  const offer = (modelId: number): ModelOffer => ({ modelId, claimId: claimWorkflowId('unit', modelId) });
  const SQUATTER = 'somethingElse';

  /** Temporal as the activity sees it: workflow type by id; an id missing here is held by nothing. */
  function temporal(held: Record<string, string>, latencyMs = 0) {
    const reads: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const describe: DescribeWorkflow = async (workflowId) => {
      reads.push(workflowId);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      try {
        if (latencyMs > 0) await delay(latencyMs);
        const type = held[workflowId];
        if (type === undefined) throw new WorkflowNotFoundError('not found', workflowId, undefined);
        return { type };
      } finally {
        inFlight--;
      }
    };
    return { describe, reads, mostInFlight: () => mostInFlight };
  }

  async function findUnclaimed(describe: DescribeWorkflow, candidates: ModelOffer[]) {
    const env = new MockActivityEnvironment(undefined, { logger: quietLogger });
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const { offers, taken }: { offers: ModelOffer[]; taken: number[] } = await env.run(
      createClaimActivities({ describe }).findUnclaimed,
      { candidates },
    );
    return { modelIds: offers.map((o) => o.modelId), taken, heartbeats };
  }

  it('keeps the candidates no workflow holds, oldest (lowest id) first', async () => {
    const { describe } = temporal({
      [offer(1002).claimId]: WORKFLOW_TYPES.claim,
      [offer(1004).claimId]: WORKFLOW_TYPES.claim,
    });
    // createModel lists candidates newest first.
    const { modelIds, taken, heartbeats } = await findUnclaimed(
      describe,
      [1005, 1004, 1003, 1002, 1001].map(offer),
    );
    expect(modelIds).toEqual([1001, 1003, 1005]);
    // The ones held by a claim, which the workflow leaves out of its later lists.
    expect(taken).toEqual([1002, 1004]);
    expect(heartbeats).toBe(5);
  });

  it("walks a squatted claim id's next ids the way the workflow's claim does", async () => {
    const squattedThenFree = offer(1001);
    const squattedThenClaimed = offer(1002);
    const squattedThroughout = offer(1003);
    const { describe, reads } = temporal({
      [squattedThenFree.claimId]: SQUATTER,
      [squattedThenClaimed.claimId]: SQUATTER,
      [claimIdAt(squattedThenClaimed.claimId, 1)]: WORKFLOW_TYPES.claim,
      ...Object.fromEntries(
        Array.from({ length: CLAIM_IDS_PER_ORDER }, (_, n) => [
          claimIdAt(squattedThroughout.claimId, n),
          SQUATTER,
        ]),
      ),
    });
    const { modelIds } = await findUnclaimed(describe, [
      squattedThenFree,
      squattedThenClaimed,
      squattedThroughout,
    ]);
    expect(modelIds).toEqual([1001]);
    // Every id of the squatted order is read, and not one past the last a claim would try.
    expect(reads.filter((id) => id.startsWith(squattedThroughout.claimId))).toHaveLength(CLAIM_IDS_PER_ORDER);
  });

  it(`answers at most ${MAX_UNCLAIMED_OFFERS}, the oldest, and stops reading once it has them`, async () => {
    const candidates = Array.from({ length: 200 }, (_, i) => offer(2000 - i));
    const claimedByOthers = Object.fromEntries(
      candidates.filter((o) => o.modelId % 3 !== 0).map((o) => [o.claimId, WORKFLOW_TYPES.claim]),
    );
    const { describe, reads } = temporal(claimedByOthers);
    const { modelIds } = await findUnclaimed(describe, candidates);
    const oldestUnclaimed = candidates
      .map((o) => o.modelId)
      .filter((id) => id % 3 === 0)
      .sort((a, b) => a - b)
      .slice(0, MAX_UNCLAIMED_OFFERS);
    expect(modelIds).toEqual(oldestUnclaimed);
    expect(reads.length).toBeLessThan(60);
  });

  it('reads a bounded number of ids at once', async () => {
    const candidates = Array.from({ length: 40 }, (_, i) => offer(1001 + i));
    const { describe, mostInFlight } = temporal(
      Object.fromEntries(candidates.map((o) => [o.claimId, WORKFLOW_TYPES.claim])),
      5,
    );
    expect(await findUnclaimed(describe, candidates)).toMatchObject({ modelIds: [] });
    expect(mostInFlight()).toBeGreaterThan(1);
    expect(mostInFlight()).toBeLessThanOrEqual(8);
  });

  it('fails (for Temporal to retry) when Temporal cannot answer', async () => {
    const describe: DescribeWorkflow = () => Promise.reject(new Error('frontend unavailable'));
    await expect(findUnclaimed(describe, [offer(1001)])).rejects.toThrow('frontend unavailable');
  });

  it('claimHolder tells a claim from a squatter and from nothing', async () => {
    const { describe } = temporal({ a: WORKFLOW_TYPES.claim, b: SQUATTER });
    const env = new MockActivityEnvironment(undefined, { logger: quietLogger });
    const { claimHolder } = createClaimActivities({ describe });
    const holders: ClaimHolder[] = [];
    for (const claimId of ['a', 'b', 'c']) {
      const { holder }: { holder: ClaimHolder } = await env.run(claimHolder, { claimId });
      holders.push(holder);
    }
    expect(holders).toEqual(['claim', 'other', 'none']);
  });
});

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import {
  budgetMeterWorkflowId,
  chargeOrderSignal,
  reserveBudgetUpdate,
  usageQuery,
  type BudgetReservation,
} from '@avatar-pipeline/client/contracts/budget-meter';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';
import { budgetSchema, type Usage } from '@avatar-pipeline/client/contracts/usage';
import { createBudgetActivities } from '../../activities/budget-activities';
import { createTimeSkippingEnv, uniqueName } from '../helpers/temporal-env';

const budget = budgetSchema.parse({ credits: 25 });
const MINUTE = 60_000;

/** The refusal's failure type and message, or undefined when the reservation was taken. */
async function refusalOf(promise: Promise<unknown>): Promise<{ type?: string; message: string } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (err as WorkflowUpdateFailedError).cause as { type?: string; message: string };
    return { ...(cause.type !== undefined ? { type: cause.type } : {}), message: cause.message };
  }
}

describe('a tenant’s budget meter on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  /** Starts `tenant`'s meter, then runs its worker through `body` and ends the meter. */
  async function withMeter(
    tenant: string,
    body: (handle: Awaited<ReturnType<typeof meter>>['handle']) => Promise<void>,
  ) {
    const { worker, handle } = await meter(tenant);
    await worker.runUntil(() => body(handle));
    await handle.terminate();
  }

  /** The meter's usage once `done` holds for it, asked again while the meter's sweep is under way. */
  async function usageOnce(
    handle: Awaited<ReturnType<typeof meter>>['handle'],
    done: (usage: Usage) => boolean,
  ) {
    for (let tries = 0; ; tries++) {
      const usage = await handle.query(usageQuery);
      if (done(usage) || tries === 100) return usage;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function meter(tenant: string) {
    const taskQueue = uniqueName('budget');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue,
      workflowsPath: require.resolve('../../workflows/budget/budget-meter'),
      activities: createBudgetActivities(),
    });
    const handle = await env.client.workflow.start('budgetMeter', {
      taskQueue,
      workflowId: budgetMeterWorkflowId(tenant),
      args: [{ tenant }],
    });
    return { worker, handle };
  }

  const reservation = (runId: string): BudgetReservation => ({ runId, credits: 14, budget });

  it('of two starts sent together that the budget holds only one of, takes one and refuses the other, which leaves no history', async () => {
    const tenant = uniqueName('race')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-')
      .slice(0, 40);
    const { worker, handle } = await meter(tenant);
    // Both updates are sent before any worker polls: both wait on the meter, and whichever it takes
    // first holds the reservation; the verdict is the same in either order.
    const first = handle.executeUpdate(reserveBudgetUpdate, { args: [reservation('run-a')] });
    const second = handle.executeUpdate(reserveBudgetUpdate, { args: [reservation('run-b')] });
    await worker.runUntil(async () => {
      const answers = await Promise.all([refusalOf(first), refusalOf(second)]);
      const refused = answers.filter((a) => a !== undefined);
      expect(refused).toEqual([
        {
          type: FAILURE_TYPES.budgetExceeded,
          message: expect.stringMatching(
            /budget of 25 credits a month .*: 0 spent and 14 reserved leave 11, and this needs 14$/,
          ),
        },
      ]);
      expect(await handle.query(usageQuery)).toMatchObject({ spent: 0, reserved: 14, left: 11 });
      // A repeated start of the run that holds the reservation is answered with it, not refused.
      const taken = answers[0] === undefined ? 'run-a' : 'run-b';
      await expect(
        handle.executeUpdate(reserveBudgetUpdate, { args: [reservation(taken)] }),
      ).resolves.toMatchObject({ reserved: 14 });
    });
    const events = (await handle.fetchHistory()).events ?? [];
    const accepted = events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;
    const rejected = events.filter((e) => e.workflowExecutionUpdateRejectedEventAttributes).length;
    expect({ accepted, rejected }).toEqual({ accepted: 2, rejected: 0 });
    await handle.terminate();
  });

  it('counts an order once however often it is told, and its run’s reservation shrinks by it', async () => {
    await withMeter('meter-orders', async (handle) => {
      await handle.executeUpdate(reserveBudgetUpdate, { args: [reservation('run-1')] });
      const training = {
        key: 'model:1001',
        kind: 'training' as const,
        runId: 'run-1',
        credits: 10,
        at: Date.now(),
      };
      await handle.signal(chargeOrderSignal, training);
      await handle.signal(chargeOrderSignal, training);
      await handle.signal(chargeOrderSignal, { ...training, key: 'order:1', kind: 'generation', credits: 2 });
      expect(await usageOnce(handle, (u) => u.spent >= 12)).toMatchObject({
        spent: 12,
        reserved: 2,
        left: 11,
        byKind: { training: { orders: 1, credits: 10 }, generation: { orders: 1, credits: 2 } },
      });
    });
  });

  it('frees the reservation of a run that ended without settling (here: one never started) once the sweep finds it', async () => {
    await withMeter('meter-sweep', async (handle) => {
      await handle.executeUpdate(reserveBudgetUpdate, { args: [reservation('never-started')] });
      await env.sleep(3 * MINUTE);
      // Within the grace a starter has to start its run, the reservation stands.
      expect(await handle.query(usageQuery)).toMatchObject({ reserved: 14 });
      await env.sleep(6 * MINUTE);
      // The sweep's activity may still be answering when the skipped time is reached.
      expect(await usageOnce(handle, (u) => u.reserved === 0)).toMatchObject({ reserved: 0, left: 25 });
    });
  });
});

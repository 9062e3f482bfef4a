import { TimeoutFailure, TimeoutType } from '@temporalio/common';
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  checkSelfiesBeforeStart,
  runChecksOf,
  SelfieChecksUnansweredError,
} from '@avatar-pipeline/client/client/selfie-check';
import { InputError } from '@avatar-pipeline/client/errors';

/**
 * How a starter's check of the selfies ends, with Temporal a fake: the check workflow's answer (or
 * its failure) is what the fake gives. The workflow and its activity run on a real server in
 * test/e2e/selfie-checks.test.ts.
 */
function fakeTemporal(answer: () => Promise<unknown>, exists = false) {
  const executed: { workflowId: string; taskQueue: string; args: unknown[] }[] = [];
  const client = {
    workflow: {
      execute: async (_type: string, options: { workflowId: string; taskQueue: string; args: unknown[] }) => {
        executed.push(options);
        return answer();
      },
      getHandle: (workflowId: string) => ({
        describe: async () => {
          if (exists) return {};
          throw new WorkflowNotFoundError('not found', workflowId, undefined);
        },
      }),
    },
  };
  return { client: client as unknown as Client, executed };
}

const RUN = {
  workflowId: 'default.avatar-pipeline-order-1',
  taskQueue: 'q',
  images: ['/s/1.jpg', '/s/2.jpg'],
};
const CHECKS = { taskQueue: 'q-checks', selfies: 'at-start' as const };

describe('the starter’s selfie check', () => {
  it('runs <run>/selfie-check on the run’s queue, sending its activity to the checks queue', async () => {
    const { client, executed } = fakeTemporal(async () => ({ issues: [] }));
    await checkSelfiesBeforeStart(client, RUN, CHECKS);
    expect(executed).toEqual([
      expect.objectContaining({
        workflowId: 'default.avatar-pipeline-order-1/selfie-check',
        taskQueue: 'q',
        args: [{ images: RUN.images, taskQueue: 'q-checks' }],
      }),
    ]);
  });

  it('turns refused selfies into an InputError naming each', async () => {
    const issues = [{ path: 'images.1', message: 'shows no face' }];
    const { client } = fakeTemporal(async () => ({ issues }));
    const refused = checkSelfiesBeforeStart(client, RUN, CHECKS);
    await expect(refused).rejects.toThrow(InputError);
    await expect(refused).rejects.toMatchObject({ issues });
  });

  it('refuses the start with SelfieChecksUnansweredError, naming the queue, when the check gets no answer', async () => {
    const timedOut = new WorkflowFailedError(
      'Workflow execution timed out',
      new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE),
      'NON_RETRYABLE_FAILURE',
    );
    const { client } = fakeTemporal(() => Promise.reject(timedOut));
    const unanswered = checkSelfiesBeforeStart(client, RUN, CHECKS);
    await expect(unanswered).rejects.toThrow(SelfieChecksUnansweredError);
    await expect(unanswered).rejects.toThrow('task queue "q-checks" (CHECK_WORKER)');
  });

  it('does not check again for a run that exists (a repeated request), nor when checks are off', async () => {
    const repeated = fakeTemporal(async () => ({ issues: [{ path: 'images.0', message: 'x' }] }), true);
    await checkSelfiesBeforeStart(repeated.client, RUN, CHECKS);
    const off = fakeTemporal(async () => ({ issues: [{ path: 'images.0', message: 'x' }] }));
    await checkSelfiesBeforeStart(
      off.client,
      RUN,
      runChecksOf(
        { taskQueue: 'q-checks', selfies: false, avatars: false, avatarRegenerations: 1 },
        'at-start',
      ),
    );
    expect([...repeated.executed, ...off.executed]).toEqual([]);
  });
});

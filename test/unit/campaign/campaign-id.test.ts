import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { campaignWorkflowIdOf } from '@avatar-pipeline/client/campaign/campaigns';

/** A Temporal client that knows these workflow ids and no others. */
function clientWith(...ids: string[]): Client {
  const workflow = {
    getHandle: (id: string) => ({
      describe: async () => {
        if (!ids.includes(id)) throw new WorkflowNotFoundError('not found', id, undefined);
        return { workflowId: id };
      },
    }),
  };
  return { workflow } as unknown as Client;
}

describe('the campaign an id names', () => {
  test('the id chosen at the start, under the tenant', async () => {
    await expect(campaignWorkflowIdOf(clientWith('default.spring'), 'default', 'spring')).resolves.toBe(
      'default.spring',
    );
    await expect(campaignWorkflowIdOf(clientWith('acme.spring'), 'acme', 'spring')).resolves.toBe(
      'acme.spring',
    );
  });

  test('the whole id the start printed', async () => {
    await expect(
      campaignWorkflowIdOf(clientWith('default.spring'), 'default', 'default.spring'),
    ).resolves.toBe('default.spring');
  });

  test('a chosen id that begins with the tenant is taken as chosen first', async () => {
    const both = clientWith('default.default.x', 'default.x');
    await expect(campaignWorkflowIdOf(both, 'default', 'default.x')).resolves.toBe('default.default.x');
  });

  test('an id of another tenant is not reached without its --tenant', async () => {
    await expect(campaignWorkflowIdOf(clientWith('acme.spring'), 'default', 'acme.spring')).resolves.toBe(
      'default.acme.spring',
    );
  });

  test('a failure other than not-found is not taken for an answer', async () => {
    const down = {
      workflow: { getHandle: () => ({ describe: () => Promise.reject(new Error('unavailable')) }) },
    } as unknown as Client;
    await expect(campaignWorkflowIdOf(down, 'default', 'default.spring')).rejects.toThrow('unavailable');
  });
});

import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { TenantAttribute } from '@avatar-pipeline/client/contracts/search-attributes';

/** A running workflow as the fake client describes it: its type, tenant (AvatarTenant) and progress query answer. */
export interface FakeRun {
  type: string;
  /** None: a run started outside the package, without the attribute. */
  tenant?: string;
  progress?: unknown;
  startTime?: Date;
}

/**
 * Just enough of a Temporal client for the API's routes on running runs: a handle describes and
 * queries the runs it is given (any other id is not found); `handleExtras` adds what a test's
 * routes call besides (cancel, executeUpdate).
 */
export function fakeTemporalClient(
  runs: Readonly<Record<string, FakeRun>>,
  handleExtras: Record<string, unknown> = {},
): Client {
  const getHandle = (id: string) => ({
    describe: async () => {
      const run = runs[id];
      if (run === undefined) throw new WorkflowNotFoundError('not found', id, undefined);
      return {
        type: run.type,
        runId: `${id}-run`,
        status: { name: 'RUNNING' },
        startTime: run.startTime ?? new Date(0),
        typedSearchAttributes: new TypedSearchAttributes(
          run.tenant === undefined ? [] : [{ key: TenantAttribute, value: run.tenant }],
        ),
      };
    },
    query: async () => runs[id]?.progress,
    ...handleExtras,
  });
  const withDeadline = <T>(_deadline: number, fn: () => Promise<T>) => fn();
  return { workflow: { getHandle }, withDeadline, connection: { withDeadline } } as unknown as Client;
}

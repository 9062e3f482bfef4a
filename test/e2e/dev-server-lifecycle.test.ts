import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import {
  ensureDevServer,
  findFreePort,
  isPortFree,
  startDevServer,
  type DevServer,
} from '../../dev/devserver';
import { devServerUnderTest, makeScratchDir, uniqueName } from '../helpers/temporal-env';

const quiet = (): void => {};

async function withClient<T>(
  address: string,
  namespace: string,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(new Client({ connection, namespace }));
  } finally {
    await connection.close();
  }
}

describe('the dev server', () => {
  let dir: string;
  let server: DevServer | undefined;
  beforeAll(async () => {
    dir = await makeScratchDir('lifecycle');
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('keeps workflows across a restart on the same database file', async () => {
    const dbFile = path.join(dir, 'restart.db');
    const workflowId = uniqueName('survivor');
    server = await startDevServer({ dbFile, ui: false, log: quiet });
    // No worker polls this queue, so the workflow stays open: the server must remember it.
    await withClient(server.address, server.namespace, (client) =>
      client.workflow.start('neverPolled', { taskQueue: uniqueName('nobody'), workflowId }),
    );
    await server.stop();

    server = await startDevServer({ dbFile, ui: false, log: quiet });
    const description = await withClient(server.address, server.namespace, (client) =>
      client.workflow.getHandle(workflowId).describe(),
    );
    expect(description.status.name).toBe('RUNNING');
  });

  it('registers a namespace and search attributes given on start', async () => {
    server = await startDevServer({
      dbFile: path.join(dir, 'attributes.db'),
      namespace: 'avatars',
      searchAttributes: { AvatarStage: 'Keyword', AvatarProgress: 'Int' },
      log: quiet,
    });
    expect(server.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(server.uiUrl ?? '');
    expect(response.ok).toBe(true);
    const connection = await Connection.connect({ address: server.address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({
        namespace: 'avatars',
      });
      expect(Object.keys(customAttributes ?? {})).toEqual(
        expect.arrayContaining(['AvatarStage', 'AvatarProgress']),
      );
    } finally {
      await connection.close();
    }
  });

  it('is started at the given address when none answers there', async () => {
    const port = await findFreePort();
    const ensured = await ensureDevServer({
      address: `127.0.0.1:${port}`,
      dbFile: path.join(dir, 'ensured.db'),
      ui: false,
      log: quiet,
    });
    try {
      expect(ensured).toMatchObject({
        address: `127.0.0.1:${port}`,
        startedHere: true,
        pid: expect.any(Number),
      });
      await withClient(ensured.address, 'default', (client) => client.workflowService.getSystemInfo({}));
    } finally {
      await ensured.stop();
    }
    expect(await isPortFree(port)).toBe(true);
  });

  it('is reused, not started twice, when one already answers at the address', async () => {
    const running = devServerUnderTest();
    const namespace = uniqueName('reused').slice(0, 40);
    const ensured = await ensureDevServer({
      address: running.address,
      dbFile: path.join(dir, 'never-created.db'),
      namespace,
      searchAttributes: { ReusedStage: 'Keyword' },
      log: quiet,
    });
    expect(ensured).toMatchObject({ address: running.address, startedHere: false, pid: undefined });
    // What the reused server lacked was added, so workflows there can use it right away.
    const connection = await Connection.connect({ address: running.address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      expect(customAttributes).toHaveProperty('ReusedStage');
    } finally {
      await connection.close();
    }
    await ensured.stop(); // must leave the shared server running
    await withClient(running.address, running.namespace, (client) =>
      client.workflowService.getSystemInfo({}),
    );
  });
});

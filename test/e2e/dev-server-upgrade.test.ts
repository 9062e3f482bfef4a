import path from 'node:path';
import { Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../dev/devserver';
import { makeScratchDir } from '../helpers/temporal-env';

const quiet = (): void => {};

describe('a dev server on a database from an earlier version', () => {
  let server: DevServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  // `temporal server start-dev --search-attribute` only registers attributes when it creates the
  // database; a database made before the package added an attribute must get it on start.
  it('gets the search attributes its database lacks, so pipelines can start there', async () => {
    const dbFile = path.join(await makeScratchDir('upgrade'), 'older.db');
    server = await startDevServer({ dbFile, ui: false, log: quiet });
    await server.stop();

    const messages: string[] = [];
    server = await startDevServer({
      dbFile,
      ui: false,
      searchAttributes: { AddedLater: 'Keyword' },
      startTimeoutMs: 20_000,
      log: (message) => messages.push(message),
    });
    const connection = await Connection.connect({ address: server.address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({
        namespace: 'default',
      });
      expect(customAttributes).toHaveProperty('AddedLater');
      expect(customAttributes).toHaveProperty('SubjectId');
    } finally {
      await connection.close();
    }
    expect(messages.join('\n')).toContain('registering search attributes AddedLater=Keyword');
  });
});

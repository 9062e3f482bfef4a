import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { findFreePort, startDevServer, type DevServer } from '../../../dev/devserver';
import { devServerUnderTest, makeScratchDir } from '../../helpers/temporal-env';
import { TEST_ENV } from '../../helpers/test-env-vars';

/** The Temporal server a scenario runs on, and a client of it. */
export interface ChaosTemporal {
  readonly address: string;
  readonly namespace: string;
  readonly client: Client;
  /** SIGKILL (no shutdown at all), then a new server on the same database file and port. */
  killAndRestart(downMs: number): Promise<{ killedPid: number; restartedPid: number; restartMs: number }>;
  close(): Promise<void>;
}

async function connectClient(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
}

/** The run's shared dev server: most scenarios leave Temporal alone. */
export async function sharedTemporal(): Promise<ChaosTemporal> {
  const { address, namespace } = devServerUnderTest();
  const client = await connectClient(address, namespace);
  return {
    address,
    namespace,
    client,
    killAndRestart: () => Promise.reject(new Error('the shared dev server is not to be killed')),
    close: () => client.connection.close(),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A dev server of the scenario's own (its own SQLite file and fixed port), so killing it touches
 * no other test. The client's connection outlives the restarts: gRPC reconnects by itself.
 */
export async function ownTemporal(prefix: string): Promise<ChaosTemporal> {
  const dir = await makeScratchDir(prefix);
  const options = {
    dbFile: path.join(dir, 'temporal.db'),
    port: await findFreePort(),
    ui: false,
    ...(process.env[TEST_ENV.temporalCli] ? { temporalCli: process.env[TEST_ENV.temporalCli] } : {}),
    log: (line: string) => process.stderr.write(`[chaos temporal] ${line}\n`),
  };
  let server: DevServer = await startDevServer(options);
  const client = await connectClient(server.address, server.namespace).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  return {
    address: server.address,
    namespace: server.namespace,
    client,
    async killAndRestart(downMs) {
      const killedPid = server.pid;
      process.kill(killedPid, 'SIGKILL');
      const deadline = Date.now() + 10_000;
      while (isAlive(killedPid)) {
        if (Date.now() > deadline) throw new Error(`dev server ${killedPid} still alive after SIGKILL`);
        await delay(50);
      }
      await server.stop(); // already gone: only forgets it
      await delay(downMs);
      const started = Date.now();
      server = await startDevServer(options);
      return { killedPid, restartedPid: server.pid, restartMs: Date.now() - started };
    },
    async close() {
      await client.connection.close().catch(() => undefined);
      await server.stop();
    },
  };
}

import { createServer, type Server } from 'node:net';
import { findFreePort, findFreePorts, isPortFree } from '../../../dev/devserver/free-port';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('free ports', () => {
  it('finds a port that can then be bound', async () => {
    const port = await findFreePort();
    const server = await listen(port);
    expect(server.address()).toMatchObject({ port });
    server.close();
  });

  it('tells a port in use from a free one', async () => {
    const port = await findFreePort();
    expect(await isPortFree(port)).toBe(true);
    const server = await listen(port);
    try {
      expect(await isPortFree(port)).toBe(false);
    } finally {
      server.close();
    }
  });

  it('hands out distinct ports', async () => {
    const ports = await findFreePorts(3);
    expect(new Set(ports).size).toBe(3);
  });
});

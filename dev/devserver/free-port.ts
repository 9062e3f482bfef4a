import { createServer } from 'node:net';

/**
 * A TCP port that was free a moment ago on `host`, chosen by the OS. Another process may take
 * it before we use it; callers that start servers retry on "address in use".
 */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen({ port: 0, host, exclusive: true }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : undefined;
      probe.close(() => (port ? resolve(port) : reject(new Error('The OS assigned no port'))));
    });
  });
}

/** `count` distinct free ports (the OS may hand the same one out twice in a row). */
export async function findFreePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await findFreePort(host));
  return [...ports];
}

/** Whether `port` can be bound on `host` right now. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

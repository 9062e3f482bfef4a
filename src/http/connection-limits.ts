import type { Server } from 'node:net';
import { clientKey } from './client-key';

/**
 * Caps the connections one client (see clientKey) may hold open on `server`: a connection past the
 * cap is closed as soon as it is accepted, before it is read. Without it a single client can fill
 * the server's whole connection budget with half-sent requests, and every other client is refused
 * until their header deadline frees them.
 *
 * Returns how many connections each client holds now (for tests and diagnostics).
 */
export function limitConnectionsPerClient(
  server: Server,
  maxPerClient: number,
): { openBy(remoteAddress: string): number } {
  if (!Number.isInteger(maxPerClient) || maxPerClient < 1)
    throw new Error(
      `the per-client connection cap must be a whole number of at least 1, not ${maxPerClient}`,
    );
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const key = clientKey(socket.remoteAddress);
    const held = open.get(key) ?? 0;
    if (held >= maxPerClient) {
      socket.destroy();
      return;
    }
    open.set(key, held + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
  return { openBy: (remoteAddress) => open.get(clientKey(remoteAddress)) ?? 0 };
}

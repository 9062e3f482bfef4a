import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';

/** Addresses a host name resolved to, as checked. */
export type ResolvedAddress = { address: string; family?: number };

/** Resolves a host name to all its addresses (the system resolver unless a test gives another). */
export type AddressLookup = (host: string) => Promise<ResolvedAddress[]>;

export const systemLookup: AddressLookup = (host) => lookup(host, { all: true });

/**
 * `fetch` that connects only to `addresses`, the ones that were checked, instead of resolving the
 * host again: a DNS answer that changes between the check and the connection (rebinding) cannot
 * send the request into the server's network. The URL keeps its host name, so TLS still verifies
 * the certificate against it. Without `addresses` (an IP literal, or a host trusted as listed),
 * it is plain fetch. The response body is read by `consume` before the connection is closed.
 */
export async function pinnedFetch<T>(
  url: URL,
  addresses: readonly ResolvedAddress[] | undefined,
  init: RequestInit,
  consume: (response: Response) => Promise<T>,
): Promise<T> {
  // One agent per request, so no connection outlives the check it was made for.
  const agent = new Agent({
    connect: addresses === undefined ? {} : { lookup: pinnedLookup(addresses) },
  });
  try {
    return await consume(await fetch(url, { ...init, dispatcher: agent }));
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

/** A `net.connect` lookup that answers with the given addresses whatever the name. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  const answers: LookupAddress[] = addresses.map(({ address, family }) => ({
    address,
    family: family ?? (address.includes(':') ? 6 : 4),
  }));
  return (_host, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = answers.filter((a) => wanted === undefined || a.family === wanted);
    const first = usable[0];
    if (first === undefined) {
      const err: NodeJS.ErrnoException = new Error('no checked address for this host');
      err.code = 'ENOTFOUND';
      callback(err, '');
    } else if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}

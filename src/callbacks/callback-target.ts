import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../images/private-address';

export interface CallbackTargetPolicy {
  /** Hosts (names or addresses) whose private or loopback addresses may be called (CALLBACK_PRIVATE_HOSTS). */
  privateHosts: string[];
}

/** A callback URL that may not be called; `temporary` when asking again later may succeed (DNS). */
export class CallbackTargetError extends Error {
  constructor(
    readonly reason: string,
    readonly temporary = false,
  ) {
    super(`callbackUrl ${reason}`);
    this.name = 'CallbackTargetError';
  }
}

export type AddressLookup = (host: string) => Promise<{ address: string }[]>;
const systemLookup: AddressLookup = (host) => lookup(host, { all: true });

/**
 * Callbacks go wherever the caller says, except into the server's own network: an http(s) URL
 * whose host is (or resolves to) a private, loopback or link-local address is refused unless the
 * host is listed in the policy. Checked when a pipeline is requested and again before each delivery.
 */
export async function checkCallbackTarget(
  raw: string,
  policy: CallbackTargetPolicy,
  resolveHost: AddressLookup = systemLookup,
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CallbackTargetError('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CallbackTargetError('must be an http(s) URL');
  if (url.username || url.password) throw new CallbackTargetError('must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (policy.privateHosts.map((h) => h.toLowerCase()).includes(host)) return url;
  if (isIP(host) !== 0) {
    if (isPrivateAddress(host)) {
      throw new CallbackTargetError(
        `points at a private address (${host}); list it in CALLBACK_PRIVATE_HOSTS to allow it`,
      );
    }
    return url;
  }
  let addresses: { address: string }[];
  try {
    addresses = await resolveHost(host);
  } catch {
    throw new CallbackTargetError(`host "${host}" cannot be resolved`, true);
  }
  const privateOne = addresses.find((a) => isPrivateAddress(a.address));
  if (privateOne) {
    throw new CallbackTargetError(
      `host "${host}" resolves to a private address (${privateOne.address}); list it in CALLBACK_PRIVATE_HOSTS to allow it`,
    );
  }
  return url;
}

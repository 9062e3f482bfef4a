import { isIP } from 'node:net';
import { systemLookup, type AddressLookup, type ResolvedAddress } from '../images/pinned-fetch';
import { isPrivateAddress } from '../images/private-address';

export type { AddressLookup } from '../images/pinned-fetch';

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

/** A callback URL that may be called, with the addresses its host resolved to when they were checked. */
export interface CheckedCallbackTarget {
  url: URL;
  /** Undefined for an IP literal or a host listed in CALLBACK_PRIVATE_HOSTS. */
  addresses?: ResolvedAddress[];
}

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
  return (await resolveCallbackTarget(raw, policy, resolveHost)).url;
}

/**
 * As checkCallbackTarget, also giving the addresses that were checked: delivery connects to
 * those (pinnedFetch), so a DNS answer that changes after the check cannot redirect it.
 */
export async function resolveCallbackTarget(
  raw: string,
  policy: CallbackTargetPolicy,
  resolveHost: AddressLookup = systemLookup,
): Promise<CheckedCallbackTarget> {
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
  if (policy.privateHosts.map((h) => h.toLowerCase()).includes(host)) return { url };
  if (isIP(host) !== 0) {
    if (isPrivateAddress(host)) {
      throw new CallbackTargetError(
        `points at a private address (${host}); list it in CALLBACK_PRIVATE_HOSTS to allow it`,
      );
    }
    return { url };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveHost(host);
  } catch {
    throw new CallbackTargetError(`host "${host}" cannot be resolved`, true);
  }
  if (addresses.length === 0) throw new CallbackTargetError(`host "${host}" cannot be resolved`, true);
  const privateOne = addresses.find((a) => isPrivateAddress(a.address));
  if (privateOne) {
    throw new CallbackTargetError(
      `host "${host}" resolves to a private address (${privateOne.address}); list it in CALLBACK_PRIVATE_HOSTS to allow it`,
    );
  }
  return { url, addresses };
}

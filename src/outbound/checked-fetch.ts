import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { isPrivateAddress } from './private-address';
import { AvatarPipelineError } from '@avatar-pipeline/client/errors';

/*
 * The one way the worker and the API reach a URL someone else chose (callbacks, selfie URLs,
 * provider avatar URLs): the URL is checked against the address rules, the connection goes only to
 * the addresses that were checked, and redirects are never followed.
 */

/** Addresses a host name resolved to, as checked. */
export type ResolvedAddress = { address: string; family?: number };

/** Resolves a host name to all its addresses (the system resolver unless a test gives another). */
export type AddressLookup = (host: string) => Promise<ResolvedAddress[]>;

const systemLookup: AddressLookup = (host) => lookup(host, { all: true });

/** Who may be reached besides public addresses. Entries are host names or IP literals, lower case or not. */
export interface AddressRules {
  /**
   * Hosts trusted as configured by the operator: neither their name nor their addresses are
   * checked, and the system resolver connects to them.
   */
  trustedHosts?: readonly string[];
  /**
   * Origins (scheme, host and port, e.g. http://provider.internal:8080) trusted as trustedHosts
   * are, but on that scheme and port only: other services on the same host stay unreachable.
   */
  trustedOrigins?: readonly string[];
  /** Private or loopback addresses that may be reached, whether written in the URL or resolved from a name. */
  allowedPrivateAddresses?: readonly string[];
  lookup?: AddressLookup;
}

/** A URL that may be fetched, with the addresses its host resolved to when checked. */
export interface CheckedUrl {
  url: URL;
  /** Undefined for an IP literal or a trusted host: nothing to pin. */
  addresses?: ResolvedAddress[];
}

/**
 * Why a URL may not be fetched. `reason` reads after the URL's field name ("callbackUrl points
 * at…"); `temporary` when asking again later may succeed (DNS); `privateAddress` when a listing
 * could allow it, so callers can name the variable that does.
 */
export class OutboundUrlError extends AvatarPipelineError {
  constructor(
    readonly reason: string,
    readonly temporary = false,
    readonly privateAddress = false,
  ) {
    super(reason);
  }
}

/** The URL's host as compared with listings: lower case, IPv6 without brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/**
 * Decides whether `raw` may be fetched, before anything is sent: an http(s) URL without
 * credentials whose host is trusted, or is (or resolves only to) public addresses or private ones
 * listed in `allowedPrivateAddresses`. Every address a name resolves to is checked, and the
 * returned ones are what fetchChecked connects to.
 */
export async function checkOutboundUrl(raw: string | URL, rules: AddressRules): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundUrlError('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundUrlError('must be an http(s) URL');
  if (url.username || url.password) throw new OutboundUrlError('must not carry credentials in the URL');
  const host = hostOf(url);
  const listed = (list: readonly string[] | undefined, entry: string) =>
    (list ?? []).some((item) => item.replace(/^\[|\]$/g, '').toLowerCase() === entry);
  if (listed(rules.trustedHosts, host)) return { url };
  if ((rules.trustedOrigins ?? []).some((origin) => new URL(origin).origin === url.origin)) return { url };
  const mayReach = (address: string) =>
    !isPrivateAddress(address) || listed(rules.allowedPrivateAddresses, address.toLowerCase());
  if (isIP(host) !== 0) {
    if (!mayReach(host)) throw new OutboundUrlError(`points at a private address (${host})`, false, true);
    return { url };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (rules.lookup ?? systemLookup)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw new OutboundUrlError(`host "${host}" cannot be resolved`, true);
  const refused = addresses.find((a) => !mayReach(a.address));
  if (refused) {
    // The address stays out: the reason reaches whoever gave the URL, and the server's DNS
    // answers about its own network are not theirs to learn.
    throw new OutboundUrlError(`host "${host}" resolves to a private address`, false, true);
  }
  return { url, addresses };
}

/**
 * Fetches a checked URL, connecting only to its checked addresses (pinnedFetch). Redirects are
 * never followed, whatever `init` says: a 3xx answer reaches `consume` as it is, for the caller
 * to refuse, since its target was never checked.
 */
export function fetchChecked<T>(
  target: CheckedUrl,
  init: RequestInit,
  consume: (response: Response) => Promise<T>,
): Promise<T> {
  return pinnedFetch(target.url, target.addresses, { ...init, redirect: 'manual' }, consume);
}

/** True for an answer that points elsewhere (fetchChecked never follows it). */
export function isRedirect(response: Response): boolean {
  return response.status >= 300 && response.status < 400;
}

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
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
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

import {
  checkOutboundUrl,
  OutboundUrlError,
  type AddressLookup,
  type CheckedUrl,
} from '../outbound/checked-fetch';
import { AvatarPipelineError } from '@avatar-pipeline/client/errors';

export type { AddressLookup } from '../outbound/checked-fetch';

export interface CallbackTargetPolicy {
  /** Hosts (names or addresses) whose private or loopback addresses may be called (CALLBACK_PRIVATE_HOSTS). */
  privateHosts: string[];
}

/** A callback URL that may not be called; `temporary` when asking again later may succeed (DNS). */
export class CallbackTargetError extends AvatarPipelineError {
  constructor(
    readonly reason: string,
    readonly temporary = false,
  ) {
    super(`callbackUrl ${reason}`);
  }
}

/** A callback URL that may be called; `addresses` undefined for an IP literal or a host listed in CALLBACK_PRIVATE_HOSTS. */
export type CheckedCallbackTarget = CheckedUrl;

/**
 * Callbacks go wherever the caller says, except into the server's own network: an http(s) URL
 * whose host is (or resolves to) a private, loopback or link-local address is refused unless the
 * host is listed in the policy. Checked when a pipeline is requested and again before each delivery.
 */
export async function checkCallbackTarget(
  raw: string,
  policy: CallbackTargetPolicy,
  resolveHost?: AddressLookup,
): Promise<URL> {
  return (await resolveCallbackTarget(raw, policy, resolveHost)).url;
}

/**
 * As checkCallbackTarget, also giving the addresses that were checked: delivery connects to
 * those (fetchChecked), so a DNS answer that changes after the check cannot redirect it.
 */
export async function resolveCallbackTarget(
  raw: string,
  policy: CallbackTargetPolicy,
  resolveHost?: AddressLookup,
): Promise<CheckedCallbackTarget> {
  try {
    return await checkOutboundUrl(raw, {
      trustedHosts: policy.privateHosts,
      ...(resolveHost ? { lookup: resolveHost } : {}),
    });
  } catch (err) {
    if (!(err instanceof OutboundUrlError)) throw err;
    const hint = err.privateAddress ? '; list it in CALLBACK_PRIVATE_HOSTS to allow it' : '';
    throw new CallbackTargetError(`${err.reason}${hint}`, err.temporary);
  }
}

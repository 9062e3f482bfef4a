import { pollingBoundsProblems, type PollingBounds } from '../contracts/polling-bounds';
import { InputError, listMessage } from '../errors';

/**
 * Refuses a start request (a pipeline's, a training's, a generation's or a campaign's options)
 * whose `polling` asks for an interval outside the operator's bounds, naming each field; the
 * request as the caller wrote it, so defaults it did not write are never refused.
 */
export function refuseOutOfBoundsPolling(
  request: unknown,
  bounds: PollingBounds | undefined,
  /** Where `polling` lies in what the caller sent. */
  path = 'polling',
): void {
  const polling =
    typeof request === 'object' && request !== null ? (request as { polling?: unknown }).polling : undefined;
  const problems = pollingBoundsProblems(polling, bounds, path);
  if (problems.length > 0) throw new InputError(problems, listMessage('Invalid polling', problems));
}

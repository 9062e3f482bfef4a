import { Context } from '@temporalio/activity';

/** The call options of a provider request made by the current activity: its cancellation. */
export const call = (): { signal: AbortSignal } => ({ signal: Context.current().cancellationSignal });

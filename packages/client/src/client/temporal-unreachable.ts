import { AvatarPipelineError } from '../errors';

/**
 * Temporal could not be reached at the configured address. The message names TEMPORAL_ADDRESS and
 * the address; the command exits 1, not 2: the setting may well be right and the server down.
 */
export class TemporalUnreachableError extends AvatarPipelineError {
  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `Cannot reach Temporal at ${address} (TEMPORAL_ADDRESS): ${reason}. Is the server running there? (for a local one: \`temporal server start-dev\`)`,
      { cause },
    );
  }
}

import { AvatarPipelineError } from '@avatar-pipeline/client/errors';

/**
 * A refusal the simulator answers as the provider would: a non-2xx status and a message in the
 * dialect's error body. (The provider client's own errors are ProviderError, packages/client/src/provider/errors.ts.)
 */
export class SimulatorRefusal extends AvatarPipelineError {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new SimulatorRefusal(400, message);
export const notFound = (message: string) => new SimulatorRefusal(404, message);
export const conflict = (message: string) => new SimulatorRefusal(409, message);
export const tooLarge = (message: string) => new SimulatorRefusal(413, message);
export const unprocessable = (message: string) => new SimulatorRefusal(422, message);

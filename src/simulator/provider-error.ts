/** A refusal the provider answers with a non-2xx status and a message in the dialect's error body. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export const badRequest = (message: string) => new ProviderError(400, message);
export const notFound = (message: string) => new ProviderError(404, message);
export const conflict = (message: string) => new ProviderError(409, message);
export const tooLarge = (message: string) => new ProviderError(413, message);
export const unprocessable = (message: string) => new ProviderError(422, message);

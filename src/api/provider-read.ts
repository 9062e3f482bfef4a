import { ModelNotFoundError } from '../client/provider-catalog';
import { ProviderError } from '../provider/errors';
import { ApiError } from './api-error';

/**
 * Runs a read against the provider, answering 404 for an id that names no model and 502 when the
 * provider fails (its message is passed on; the API key never is, it is not part of any message).
 */
export async function readFromProvider<T>(read: () => Promise<T>, notFoundPath: string): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ModelNotFoundError) {
      throw new ApiError(404, `No model ${err.modelId}: ${err.reason}`, [
        { path: notFoundPath, message: err.reason },
      ]);
    }
    if (err instanceof ProviderError) throw new ApiError(502, `The provider failed: ${err.message}`, []);
    throw err;
  }
}

import { ProviderError } from '@avatar-pipeline/client/provider/errors';

/** The provider error a call was refused with (fails the test if it succeeded or failed otherwise). */
export async function providerFailure(call: Promise<unknown>): Promise<ProviderError> {
  const err: unknown = await call.then(
    () => new Error('expected the call to fail'),
    (e: unknown) => e,
  );
  if (!(err instanceof ProviderError)) throw err;
  return err;
}

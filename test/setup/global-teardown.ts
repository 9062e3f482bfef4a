import { rmSync } from 'node:fs';
import { TEST_ENV } from '../helpers/test-env-vars';
import { takeTestServerState } from './test-server-state';

/**
 * Stops the run's dev server and deletes the run directory (database, server log, scratch files),
 * unless KEEP_TEMPORAL_TEST_DATA=1 asks to keep them for a look.
 */
export default async function globalTeardown(): Promise<void> {
  const state = takeTestServerState();
  if (state?.devServer) {
    await state.devServer.stop();
    delete process.env[TEST_ENV.address];
  }
  if (state?.runDir && process.env.KEEP_TEMPORAL_TEST_DATA !== '1') {
    rmSync(state.runDir, { recursive: true, force: true });
  }
}

import type { DevServer } from '../../dev/devserver';

/** What global setup leaves for global teardown (both run in jest's parent process). */
export interface TestServerState {
  /** Undefined when the run used a server given in TEMPORAL_TEST_ADDRESS. */
  devServer: DevServer | undefined;
  /** Per-run directory: the server's database and log, and tests' scratch files. */
  runDir: string;
}

const STATE_KEY = Symbol.for('avatar-pipeline.test-server-state');

type GlobalWithState = typeof globalThis & { [STATE_KEY]?: TestServerState };

export function saveTestServerState(state: TestServerState): void {
  (globalThis as GlobalWithState)[STATE_KEY] = state;
}

export function takeTestServerState(): TestServerState | undefined {
  const holder = globalThis as GlobalWithState;
  const state = holder[STATE_KEY];
  delete holder[STATE_KEY];
  return state;
}

import type { PollingOptions } from '@avatar-pipeline/client/contracts/pipeline-input';

/**
 * How big a chaos run is. The full suite (`npm run chaos`) uses FULL_SIZE; the subset in
 * `npm test` uses FAST_SIZE, small enough for CI on two cores yet with every fault still hitting.
 */
export interface ChaosSize {
  label: 'fast' | 'full';
  subjects: number;
  selfiesPerSubject: number;
  styles: number[];
  /** Pipelines a campaign runs at once: below `subjects`, so the campaign's window is exercised too. */
  maxInFlight: number;
  /** Provider processing times of the simulator (wall clock). */
  trainingMs: number;
  generationMs: number;
  /** Scenario 1: SIGKILLs of the worker process. */
  workerKills: number;
  /** Scenario 1: a kill comes this long after the worker (re)started, drawn uniformly. */
  killAfterMs: { min: number; max: number };
  /** Scenario 2: dev server kills (each followed by a restart on the same database and port). */
  serverRestarts: number;
  /** Scenario 4: how long the provider stays down. */
  outageMs: number;
  /** Scenario 3: fault rates. Rare faults are raised in the fast size, so each still happens a few times. */
  providerFaults: {
    fail5xxRate: number;
    loseResponseRate: number;
    malformedJsonRate: number;
    slowRate: number;
  };
  /** Upper bound for one scenario, as the jest timeout. */
  scenarioTimeoutMs: number;
}

export const FAST_SIZE: ChaosSize = {
  label: 'fast',
  subjects: 8,
  selfiesPerSubject: 2,
  styles: [3, 5],
  maxInFlight: 4,
  trainingMs: 3_000,
  generationMs: 1_500,
  workerKills: 3,
  killAfterMs: { min: 1_000, max: 3_500 },
  serverRestarts: 1,
  outageMs: 10_000,
  providerFaults: { fail5xxRate: 0.1, loseResponseRate: 0.1, malformedJsonRate: 0.04, slowRate: 0.03 },
  scenarioTimeoutMs: 180_000,
};

export const FULL_SIZE: ChaosSize = {
  label: 'full',
  subjects: 50,
  selfiesPerSubject: 3,
  styles: [3, 5, 7],
  maxInFlight: 10,
  trainingMs: 5_000,
  generationMs: 2_000,
  workerKills: 10,
  killAfterMs: { min: 2_000, max: 8_000 },
  serverRestarts: 2,
  outageMs: 60_000,
  providerFaults: { fail5xxRate: 0.1, loseResponseRate: 0.05, malformedJsonRate: 0.02, slowRate: 0.01 },
  scenarioTimeoutMs: 900_000,
};

/** Polling for simulated orders that finish within seconds (the product's 5 s first wait would dominate). */
export const CHAOS_POLLING: PollingOptions = {
  initialIntervalMs: 1_000,
  minIntervalMs: 500,
  maxIntervalMs: 3_000,
  backoffCoefficient: 1.5,
};

/** Avatars the simulator makes per generation order (its default). */
export const AVATARS_PER_ORDER = 8;

/** The size `npm run chaos` runs at: full, unless CHAOS_SIZE=fast asks for the fast subset's. */
export function chaosSizeFromEnv(env: NodeJS.ProcessEnv = process.env): ChaosSize {
  const asked = env.CHAOS_SIZE?.trim() || 'full';
  if (asked === 'full') return FULL_SIZE;
  if (asked === 'fast') return FAST_SIZE;
  throw new Error(`CHAOS_SIZE must be full or fast, not "${asked}"`);
}

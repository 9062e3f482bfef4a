import { FAST_SIZE } from '../chaos/harness/chaos-size';
import { providerChaosScenario } from '../chaos/scenarios/provider-chaos';
import { providerOutageScenario } from '../chaos/scenarios/provider-outage';
import { rateControllerKillScenario } from '../chaos/scenarios/rate-controller-kill';
import { serverRestartScenario } from '../chaos/scenarios/server-restart';
import { twoWorkersScenario } from '../chaos/scenarios/two-workers';
import { workerKillsScenario } from '../chaos/scenarios/worker-kills';
import { requireCompiledCli } from '../helpers/worker-process';

/**
 * The chaos suite's fast subset, run by `npm test`: every scenario of test/chaos at FAST_SIZE
 * (8 subjects, 2 selfies, 2 styles, 3 worker kills, a 10 s provider outage), on real
 * `avatar-pipeline worker` processes, a dev server and the simulator. `npm run chaos` runs the
 * same scenarios full size.
 */
describe('chaos (fast subset)', () => {
  const timeout = FAST_SIZE.scenarioTimeoutMs;
  beforeAll(() => requireCompiledCli());

  test(
    '1. the worker process SIGKILLed at random moments, restarted each time',
    () => workerKillsScenario(FAST_SIZE),
    timeout,
  );
  test(
    '2. the Temporal dev server SIGKILLed and restarted on its database',
    () => serverRestartScenario(FAST_SIZE),
    timeout,
  );
  test(
    '3. 5xx, lost answers, malformed JSON, slow answers and 429 bursts at once',
    () => providerChaosScenario(FAST_SIZE),
    timeout,
  );
  test(
    '4. the provider down in mid-training, back with its state',
    () => providerOutageScenario(FAST_SIZE),
    timeout,
  );
  test('5. two worker processes sharing one campaign', () => twoWorkersScenario(FAST_SIZE), timeout);
  test(
    '6. the rate controller’s worker SIGKILLed while the provider grants less than PROVIDER_MAX_RPS',
    () => rateControllerKillScenario(FAST_SIZE),
    timeout,
  );
});

import path from 'node:path';
import { startSimulator, type RunningSimulator, type SimulatorStats } from '../../../src/simulator';
import type { SimulatorOptions } from '../../../src/simulator';
import { uniqueBasePath } from '../../helpers/e2e-pipeline';
import { makeScratchDir } from '../../helpers/temporal-env';

/**
 * The provider simulator of a scenario, in this process. With a state file it can go down and
 * come back on the same port with every order, image and counter it had, like a real outage.
 */
export class ChaosProvider {
  private constructor(
    private running: RunningSimulator | undefined,
    private readonly options: SimulatorOptions & { port: number },
    readonly url: string,
  ) {}

  static async start(prefix: string, options: SimulatorOptions): Promise<ChaosProvider> {
    const stateFile = path.join(await makeScratchDir(`${prefix}-provider`), 'simulator-state.json');
    // A base path of its own: claim ids name the provider by host and path (see uniqueBasePath).
    const resolved = { basePath: uniqueBasePath(prefix), stateFile, ...options };
    const sim = await startSimulator(resolved);
    return new ChaosProvider(sim, { ...resolved, port: sim.port }, sim.url);
  }

  get isUp(): boolean {
    return this.running !== undefined;
  }

  private get sim(): RunningSimulator {
    if (!this.running) throw new Error('the provider is down');
    return this.running;
  }

  stats(): SimulatorStats {
    return this.sim.stats();
  }

  setOptions(patch: SimulatorOptions): void {
    this.sim.setOptions(patch);
  }

  /** Stops answering: the port closes and open connections are cut. */
  async stop(): Promise<void> {
    const sim = this.running;
    this.running = undefined;
    await sim?.stop();
  }

  /** Back on the same port, from its state file. */
  async restart(): Promise<void> {
    if (this.running) throw new Error('the provider is already up');
    this.running = await startSimulator(this.options);
  }
}

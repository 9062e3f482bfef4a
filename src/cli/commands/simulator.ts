import type { Command } from 'commander';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { EXIT } from '../exit-codes';
import { serveUntilSignal, stopSignal } from '../serve-until-signal';
import { simulatorFlagOptions, simulatorOptionsFromFlags, type SimulatorFlags } from './simulator-flags';

function describe(simulator: RunningSimulator, flags: SimulatorFlags): string {
  const faults = [
    flags.fault5xx && `5xx ${flags.fault5xx}`,
    flags.loseResponse && `lost responses ${flags.loseResponse}`,
    flags.malformedJson && `malformed JSON ${flags.malformedJson}`,
    flags.slow && `slow ${flags.slow}`,
    flags.rateLimit && `rate limit ${flags.rateLimit}/s`,
  ].filter(Boolean);
  return [
    `provider simulator listening at ${simulator.url} (${flags.dialect} dialect)`,
    `  stats: ${simulator.origin}${flags.basePath}/__sim/stats`,
    `  faults: ${faults.length > 0 ? faults.join(', ') : 'none'}`,
    '  stop with Ctrl-C',
  ].join('\n');
}

/** Resolves when the simulator should stop; tests substitute their own. */
export type StopTrigger = (simulator: RunningSimulator) => Promise<unknown>;

async function runSimulator(flags: SimulatorFlags, untilStopped: StopTrigger): Promise<void> {
  const result = simulatorOptionsFromFlags(flags);
  if (!result.ok) {
    for (const problem of result.problems) console.error(`avatar-pipeline simulator: ${problem}`);
    process.exitCode = EXIT.badInput;
    return;
  }
  let simulator: RunningSimulator;
  try {
    // The controls' token comes from the environment only, so it never shows in a process listing.
    const adminToken = process.env.SIMULATOR_ADMIN_TOKEN || null;
    simulator = await startSimulator({ ...result.options, adminToken, port: flags.port, host: flags.host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE'
        ? `--port ${flags.port}: already in use`
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
          ? `--host ${flags.host}: not an address of this machine`
          : err instanceof Error
            ? err.message
            : String(err);
    console.error(`avatar-pipeline simulator: ${reason}`);
    process.exitCode = EXIT.badInput;
    return;
  }
  // stdout carries only the URL, so scripts can read it; the rest goes to stderr.
  process.stdout.write(`${simulator.url}\n`);
  console.error(describe(simulator, flags));
  await serveUntilSignal(
    'provider simulator',
    () => simulator.stop(),
    () => untilStopped(simulator),
  );
}

export function registerSimulatorCommand(program: Command, untilStopped: StopTrigger = stopSignal): void {
  const command = program
    .command('simulator')
    .description(
      'Run the local provider simulator: the whole provider REST interface in memory, with knobs for timing, outcomes and faults',
    )
    .addHelpText(
      'after',
      [
        '',
        'Endpoints are served under --base-path; test controls under <base-path>/__sim:',
        '  GET /__sim/stats, GET|POST /__sim/options (JSON patch of knobs), POST /__sim/reset: with',
        '  SIMULATOR_ADMIN_TOKEN set they need Authorization: Bearer <token>, without it loopback clients only',
        '  (Host localhost, 127.0.0.1 or [::1]).',
        'Example: avatar-pipeline simulator --port 4010 --dialect variant --base-path /rest/api --fault-5xx 0.1',
      ].join('\n'),
    );
  for (const option of simulatorFlagOptions()) command.addOption(option);
  command.action((flags: SimulatorFlags) => runSimulator(flags, untilStopped));
}

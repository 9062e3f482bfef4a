/* eslint-disable @typescript-eslint/no-require-imports -- each command's modules load on use (below) */
import { Command } from 'commander';
import type * as api from './commands/api';
import type * as campaign from './commands/campaign';
import type * as campaigns from './commands/campaigns';
import type * as codecServer from './commands/codec-server';
import type * as forget from './commands/forget';
import type * as list from './commands/list';
import type * as modelRuns from './commands/model-runs';
import type * as providerRecords from './commands/provider-records';
import type * as run from './commands/run';
import type * as setup from './commands/setup';
import type * as simulator from './commands/simulator';
import type * as status from './commands/status';
import type * as review from './commands/review';
import type * as styles from './commands/styles';
import type * as subjectQuery from './commands/subject-query';
import type * as usage from './commands/usage';
import type * as webhooks from './commands/webhooks';
import type * as worker from './commands/worker';

type Register = (program: Command) => void;

/**
 * Every command, in the order help lists them, with the module that defines it. A module is
 * loaded only when its command runs (or when help lists them all): the Temporal SDK, the HTTP
 * server and the manifest readers are each some tenths of a second of start-up, and a process
 * that asks a campaign's status should not pay for the worker's.
 */
const COMMANDS: ReadonlyArray<readonly [names: readonly string[], load: () => Register]> = [
  [['worker'], () => (require('./commands/worker') as typeof worker).registerWorkerCommand],
  [['run'], () => (require('./commands/run') as typeof run).registerRunCommand],
  [
    ['train', 'generate', 'retry'],
    () => (require('./commands/model-runs') as typeof modelRuns).registerModelRunCommands,
  ],
  [['campaign'], () => (require('./commands/campaign') as typeof campaign).registerCampaignCommand],
  [['campaigns'], () => (require('./commands/campaigns') as typeof campaigns).registerCampaignsCommand],
  [['review'], () => (require('./commands/review') as typeof review).registerReviewCommand],
  [['status'], () => (require('./commands/status') as typeof status).registerStatusCommand],
  [['list'], () => (require('./commands/list') as typeof list).registerListCommand],
  [['usage'], () => (require('./commands/usage') as typeof usage).registerUsageCommand],
  [['styles'], () => (require('./commands/styles') as typeof styles).registerStylesCommand],
  [
    ['models', 'orders'],
    () => (require('./commands/provider-records') as typeof providerRecords).registerProviderRecordCommands,
  ],
  [['simulator'], () => (require('./commands/simulator') as typeof simulator).registerSimulatorCommand],
  [['api'], () => (require('./commands/api') as typeof api).registerApiCommand],
  [['setup'], () => (require('./commands/setup') as typeof setup).registerSetupCommand],
  [
    ['codec-server'],
    () => (require('./commands/codec-server') as typeof codecServer).registerCodecServerCommand,
  ],
  [
    ['subject-query'],
    () => (require('./commands/subject-query') as typeof subjectQuery).registerSubjectQueryCommand,
  ],
  [['forget'], () => (require('./commands/forget') as typeof forget).registerForgetCommand],
  [['webhooks'], () => (require('./commands/webhooks') as typeof webhooks).registerWebhooksCommand],
];

/**
 * The program with the command named on the command line, or with every command when none is
 * named (help, a mistyped name: commander then lists or suggests from all of them).
 */
export function buildProgram(argv: readonly string[]): Command {
  const program = new Command('avatar-pipeline')
    .description('Durable avatar pipelines on Temporal: selfies in, a trained model and avatars out.')
    .showHelpAfterError()
    .exitOverride();
  const named = argv[2];
  const only = COMMANDS.find(([names]) => named !== undefined && names.includes(named));
  for (const [, load] of only ? [only] : COMMANDS) load()(program);
  return program;
}

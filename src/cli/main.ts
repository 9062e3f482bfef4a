import { Command } from 'commander';
import { registerApiCommand } from './commands/api';
import { registerCampaignCommand } from '../campaign/cli/campaign';
import { registerCampaignsCommand } from '../campaign/cli/campaigns';
import { registerListCommand } from './commands/list';
import { registerModelRunCommands } from './commands/model-runs';
import { registerProviderRecordCommands } from './commands/provider-records';
import { registerRunCommand } from './commands/run';
import { registerSimulatorCommand } from './commands/simulator';
import { registerStatusCommand } from './commands/status';
import { registerStylesCommand } from './commands/styles';
import { registerWorkerCommand } from './commands/worker';
import { registerSetupCommand } from './commands/setup';
import { registerCodecServerCommand } from './commands/codec-server';
import { registerSubjectQueryCommand } from './commands/subject-query';
import { registerForgetCommand } from './commands/forget';
import { registerWebhooksCommand } from './commands/webhooks';
import { runProgram } from './run-program';

function buildProgram(): Command {
  const program = new Command('avatar-pipeline')
    .description('Durable avatar pipelines on Temporal: selfies in, a trained model and avatars out.')
    .showHelpAfterError()
    .exitOverride();
  registerWorkerCommand(program);
  registerRunCommand(program);
  registerModelRunCommands(program);
  registerCampaignCommand(program);
  registerCampaignsCommand(program);
  registerStatusCommand(program);
  registerListCommand(program);
  registerStylesCommand(program);
  registerProviderRecordCommands(program);
  registerSimulatorCommand(program);
  registerApiCommand(program);
  registerSetupCommand(program);
  registerCodecServerCommand(program);
  registerSubjectQueryCommand(program);
  registerForgetCommand(program);
  registerWebhooksCommand(program);
  return program;
}

void runProgram(buildProgram(), process.argv);

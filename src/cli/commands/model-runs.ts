import { InvalidArgumentError, type Command } from 'commander';
import type { GenerationFieldNames } from '@avatar-pipeline/client/client/generation-check';
import {
  getTraining,
  startGeneration,
  startRetry,
  startTraining,
  validateTrainingRequest,
  type StartModelRunOptions,
} from '@avatar-pipeline/client/client/model-runs';
import { pricingFromEnv } from '../cli-pricing';
import { createPipelineClient, type PipelineClient } from '@avatar-pipeline/client/client/pipeline-client';
import { tenantOption } from '../tenant-flag';
import { getPipeline } from '@avatar-pipeline/client/client/pipelines';
import { ProviderCatalog } from '@avatar-pipeline/client/client/provider-catalog';
import { loadConfig } from '../../config/load-config';
import type { TrainingRequest, TrainingResult } from '@avatar-pipeline/client/contracts/model-runs';
import type { PipelineProgress, PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';
import { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { EXIT } from '../exit-codes';
import { reportError } from '../fail';
import { progressViewFor } from '../progress-view';
import {
  describeResult,
  genderFlag,
  imagesFlag,
  mainImageIndexFlag,
  stylesFlag,
  withFlagNames,
} from '../run-flags';
import { rootMessage } from '../root-message';
import { watchProgress } from '../watch-progress';
import { printableJson, printableLines, writeLines } from '../printable';
import { InputError } from '@avatar-pipeline/client/errors';

/** How a generation's fields are named on the command line. */
const CLI_FIELDS: GenerationFieldNames = { modelId: '--model', gender: '--gender', style: () => '--styles' };

const EXIT_CODES = 'Exit codes: 0 done (all or some styles), 1 the run failed, 2 bad input or configuration.';

/** `train`, `generate` and `retry`: a model trained once, avatars generated from it any time later. */
export function registerModelRunCommands(program: Command): void {
  program
    .command('train')
    .description('Train a model from selfies (no styles generated); prints the model id when it is DONE')
    .requiredOption('--images <paths...>', 'selfie files or directories of .jpg/.png files')
    .requiredOption(
      '--styles <ids>',
      'style ids recorded on the model order (the provider asks for them), e.g. 3',
    )
    .requiredOption('--gender <1|2>', '1 = woman, 2 = man')
    .option('--main-image <n>', 'position of the main training image among the selfies (1 = first)', '1')
    .option('--subject <id>', 'a name for the person, shown in the Temporal UI and in `list`')
    .option('--request-id <id>', 'idempotency key: the same id attaches to the same run')
    .addOption(tenantOption('run it is'))
    .option('--json', 'print exactly one JSON document ({workflowId, modelId, status}) on stdout')
    .addHelpText(
      'after',
      `\nThen: avatar-pipeline generate --model <modelId> --styles 5,7\n${EXIT_CODES.replace(' (all or some styles)', '')}`,
    )
    .action(async (flags: TrainFlags) => {
      await exitWith(async () => {
        const input = await trainingFromFlags(flags);
        return withClient(flags.tenant, async (pipelines) => {
          const run = await startTraining(pipelines.temporal, input, runOptions(pipelines, flags.requestId));
          return waitFor(getTraining(pipelines.temporal, run.workflowId), flags.json, describeTraining);
        });
      });
    });

  program
    .command('generate')
    .description('Generate avatars in more styles under a model that is already DONE (no training)')
    .requiredOption('--model <id>', 'the model id (from `train`, `run` or `avatar-pipeline models`)', parseId)
    .requiredOption('--styles <ids>', 'comma-separated style ids, e.g. 5,7')
    .option('--gender <1|2>', 'the gender the model was trained for (default: as the provider records it)')
    .option('--subject <id>', 'a name for the person, shown in the Temporal UI and in `list`')
    .option('--request-id <id>', 'idempotency key: the same id attaches to the same run')
    .addOption(tenantOption('run it is'))
    .option('--json', 'print exactly one JSON document (the result) on stdout; progress goes to stderr')
    .addHelpText(
      'after',
      `\nThe provider is asked first: the model must be a model (not a generation order), DONE and of the\ngender given, and every style offered; otherwise nothing starts and the flag at fault is named.\n${EXIT_CODES}`,
    )
    .action(async (flags: GenerateFlags) => {
      await exitWith(async () => {
        const styles = stylesFlag(flags.styles);
        const provider = new ProviderClient(loadConfig().provider);
        const gender =
          flags.gender === undefined ? await recordedGender(provider, flags.model) : genderFlag(flags.gender);
        return withClient(flags.tenant, async (pipelines) => {
          const run = await startGeneration(
            pipelines.temporal,
            provider,
            { modelId: flags.model, styles, gender, ...(flags.subject ? { subjectId: flags.subject } : {}) },
            { ...runOptions(pipelines, flags.requestId), fields: CLI_FIELDS },
          );
          return waitFor(getPipeline(pipelines.temporal, run.workflowId), flags.json, describeResult);
        });
      });
    });

  program
    .command('retry')
    .description('Generate again, under the same model, the styles of a run that did not end DONE')
    .argument('<workflowId>', 'a pipeline, generation or retry run that ended PARTIAL or with no style DONE')
    .option(
      '--request-id <id>',
      'accepted as by the other commands: a retry of the same run and styles is one run whatever the id',
    )
    .addOption(tenantOption("run is retried (the retry is the tenant's too)"))
    .option('--json', 'print exactly one JSON document (the combined result) on stdout')
    .addHelpText(
      'after',
      `\nStyles that ended DONE keep their avatars and are not generated again; the result lists every style.\n${EXIT_CODES}`,
    )
    .action(async (workflowId: string, flags: { requestId?: string; json?: boolean; tenant: string }) => {
      await exitWith(async () => {
        const provider = new ProviderClient(loadConfig().provider);
        return withClient(flags.tenant, async (pipelines) => {
          const run = await startRetry(
            pipelines.temporal,
            provider,
            workflowId,
            runOptions(pipelines, flags.requestId),
          );
          writeLines(
            process.stderr,
            `retrying styles ${run.plan.styles.join(', ')} of ${workflowId} under model ${run.plan.modelId}`,
          );
          return waitFor(getPipeline(pipelines.temporal, run.workflowId), flags.json, describeResult);
        });
      });
    });
}

interface TrainFlags {
  images: string[];
  styles: string;
  gender: string;
  mainImage: string;
  subject?: string;
  requestId?: string;
  tenant: string;
  json?: boolean;
}

interface GenerateFlags {
  model: number;
  styles: string;
  gender?: string;
  subject?: string;
  requestId?: string;
  tenant: string;
  json?: boolean;
}

async function exitWith(run: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await run();
  } catch (err) {
    reportError(err instanceof InputError ? withFlagNames(err) : err);
  }
}

async function withClient(
  tenant: string,
  use: (pipelines: PipelineClient) => Promise<number>,
): Promise<number> {
  const pipelines = await createPipelineClient({ tenant });
  try {
    return await use(pipelines);
  } finally {
    await pipelines.close();
  }
}

function runOptions(pipelines: PipelineClient, requestId: string | undefined): StartModelRunOptions {
  const pricing = pricingFromEnv(pipelines.tenant);
  return {
    ...pipelines.placement,
    tenant: pipelines.tenant,
    ...(pricing ? { pricing } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

/** Shows progress on stderr until the run ends, then prints its result (or why it failed). */
async function waitFor<R>(
  handle: { workflowId: string; progress(): Promise<PipelineProgress>; result(): Promise<R> },
  json: boolean | undefined,
  describe: (result: R) => string,
): Promise<number> {
  writeLines(process.stderr, `started ${handle.workflowId}`);
  const watch = watchProgress(handle, progressViewFor(process.stderr, { workflowId: handle.workflowId }));
  try {
    const result = await handle.result();
    await watch.stop(isPipelineResult(result) ? result : undefined);
    process.stdout.write(json ? printableJson(result) : `${printableLines(describe(result))}\n`);
    return EXIT.ok;
  } catch (err) {
    await watch.stop();
    writeLines(process.stderr, `${handle.workflowId} failed: ${rootMessage(err)}`);
    return EXIT.failed;
  }
}

function isPipelineResult(value: unknown): value is PipelineResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as PipelineResult).generations);
}

/** As `run`'s: refused here when invalid, started as written (see inputFromFlags in run.ts). */
async function trainingFromFlags(flags: TrainFlags): Promise<TrainingRequest> {
  const request: TrainingRequest = {
    images: await imagesFlag(flags.images),
    styles: stylesFlag(flags.styles),
    gender: genderFlag(flags.gender),
    mainImageIndex: mainImageIndexFlag(flags.mainImage),
    ...(flags.subject ? { subjectId: flags.subject } : {}),
  };
  validateTrainingRequest(request);
  return request;
}

/** Without --gender, the model's own (the provider records it); a model without one needs the flag. */
async function recordedGender(provider: ProviderClient, modelId: number): Promise<1 | 2> {
  const found = await new ProviderCatalog(provider).lookup(modelId, '--model');
  if (found.kind === 'model' && found.model.gender !== undefined) return found.model.gender;
  // Not a model: any gender lets the check name --model for what it is.
  if (found.kind !== 'model') return 1;
  throw InputError.field('--gender', `the provider records no gender for model ${modelId}: give --gender`);
}

function parseId(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new InvalidArgumentError('must be a positive integer (a model id)');
  }
  return Number(value);
}

function describeTraining(result: TrainingResult): string {
  return `${result.workflowId}: model ${result.modelId} is DONE\nnext: avatar-pipeline generate --model ${result.modelId} --styles <ids>`;
}

import type { Command } from 'commander';
import { askOfferedStyles } from '../../operations/offered-styles';
import { createPipelineClient } from '@avatar-pipeline/client/client/pipeline-client';
import { pricingFromEnv } from '../cli-pricing';
import { tenantOption } from '../tenant-flag';
import { validatePipelineRequest } from '@avatar-pipeline/client/client/pipelines';
import type { PipelineRequest } from '@avatar-pipeline/client/contracts/pipeline-input';
import { EXIT } from '../exit-codes';
import { reportError } from '../fail';
import { rootMessage } from '../root-message';
import { progressViewFor } from '../progress-view';
import {
  describeResult,
  genderFlag,
  imagesFlag,
  mainImageIndexFlag,
  stylesFlag,
  withFlagNames,
} from '../run-flags';
import { watchProgress } from '../watch-progress';
import { printableJson, printableLines, writeLines } from '../printable';
import { InputError } from '@avatar-pipeline/client/errors';

interface RunOptions {
  images: string[];
  styles: string;
  gender: string;
  mainImage: string;
  subject?: string;
  requestId?: string;
  tenant: string;
  review?: boolean;
  json?: boolean;
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('Start one pipeline, show its progress and wait for the result')
    .requiredOption('--images <paths...>', 'selfie files or directories of .jpg/.png files')
    .requiredOption('--styles <ids>', 'comma-separated style ids, e.g. 3,5,7 (see `avatar-pipeline styles`)')
    .requiredOption('--gender <1|2>', '1 = woman, 2 = man')
    .option('--main-image <n>', 'position of the main training image among the selfies (1 = first)', '1')
    .option('--subject <id>', 'a name for the person, shown in the Temporal UI and in `list`')
    .option('--request-id <id>', 'idempotency key: the same id attaches to the same run')
    .option(
      '--review',
      'hold the generated styles for review; decide with `avatar-pipeline review <id>` (deadline 72 h, then rejected)',
    )
    .option('--json', 'print exactly one JSON document (the result) on stdout; progress goes to stderr')
    .addHelpText(
      'after',
      [
        '',
        'Progress goes to stderr: a live view on a terminal, one plain line per change otherwise.',
        'The result goes to stdout. Ctrl-C stops watching; the pipeline itself keeps running.',
        'Selfies are checked before anything starts (whole JPEG/PNG, at most 10 MiB each); with IMAGE_ROOTS',
        'set, files outside it are refused too, as the workers would refuse them.',
        'Exit codes: 0 done (all or some styles), 1 the pipeline failed, 2 bad input or configuration.',
        '',
        'Example: avatar-pipeline run --images samples/selfies --styles 3,7 --gender 1 --json',
      ].join('\n'),
    )
    .addOption(tenantOption('run it is'))
    .action(async (options: RunOptions) => {
      try {
        process.exitCode = await runPipeline(options);
      } catch (err) {
        reportError(err instanceof InputError ? withFlagNames(err) : err);
      }
    });
}

async function runPipeline(options: RunOptions): Promise<number> {
  const input = await inputFromFlags(options);
  refuseUnofferedStyles(
    input.styles,
    await askOfferedStyles((line) => process.stderr.write(printableLines(line))),
  );
  const pricing = pricingFromEnv(options.tenant);
  const pipelines = await createPipelineClient({ tenant: options.tenant, ...(pricing ? { pricing } : {}) });
  try {
    const handle = await pipelines.start(input, options.requestId ? { requestId: options.requestId } : {});
    writeLines(process.stderr, `started ${handle.workflowId}`);
    const watch = watchProgress(handle, progressViewFor(process.stderr, { workflowId: handle.workflowId }));
    const outcome = await Promise.race([
      handle.result().then(
        (result) => ({ kind: 'done' as const, result }),
        (error: unknown) => ({ kind: 'failed' as const, error }),
      ),
      interrupted(),
    ]);
    await watch.stop(outcome.kind === 'done' ? outcome.result : undefined);
    if (outcome.kind === 'interrupted') {
      writeLines(
        process.stderr,
        `stopped watching; ${handle.workflowId} keeps running. Check it with: avatar-pipeline status ${handle.workflowId}`,
      );
      return EXIT.interrupted;
    }
    if (outcome.kind === 'failed') {
      writeLines(process.stderr, `pipeline ${handle.workflowId} failed: ${rootMessage(outcome.error)}`);
      return EXIT.failed;
    }
    if (options.json) process.stdout.write(printableJson(outcome.result));
    else writeLines(process.stdout, describeResult(outcome.result));
    return EXIT.ok;
  } finally {
    await pipelines.close();
  }
}

/**
 * The request the flags make, refused here (exit 2 naming the flag's field) when invalid. It is
 * started as written, not with the schema's defaults filled in: the operator's polling bounds apply
 * to what a caller asks for, and defaults outside them are moved inside, not refused.
 */
async function inputFromFlags(options: RunOptions): Promise<PipelineRequest> {
  const request: PipelineRequest = {
    images: await imagesFlag(options.images),
    styles: stylesFlag(options.styles),
    gender: genderFlag(options.gender),
    mainImageIndex: mainImageIndexFlag(options.mainImage),
    ...(options.subject ? { subjectId: options.subject } : {}),
    ...(options.review ? { review: { required: true } } : {}),
  };
  validatePipelineRequest(request);
  return request;
}

/** A typo costs an exit code 2 naming --styles, instead of a pipeline that fails minutes later. */
function refuseUnofferedStyles(styles: number[], offered: number[] | undefined): void {
  const unknown = offered ? styles.filter((id) => !offered.includes(id)) : [];
  if (offered && unknown.length > 0) {
    throw InputError.field(
      '--styles',
      `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not offered by the provider (offered: ${[...offered].sort((a, b) => a - b).join(', ')}; see \`avatar-pipeline styles\`)`,
    );
  }
}

function interrupted(): Promise<{ kind: 'interrupted' }> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve({ kind: 'interrupted' }));
  });
}

import { setTimeout as delay } from 'node:timers/promises';
import type { Command } from 'commander';
import { connectClient } from '../../client/connect';
import { startPipeline, validatePipelineRequest, type PipelineHandle } from '../../client/pipelines';
import { loadConfig } from '../../config/load-config';
import { EXIT } from '../exit-codes';
import { reportError } from '../fail';
import { resolveImagePaths } from '../image-paths';
import { describeProgress } from '../progress-lines';

interface RunOptions {
  images: string[];
  styles: string;
  gender: string;
  mainImage: string;
  subject?: string;
  requestId?: string;
  json?: boolean;
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('Start one pipeline, show its progress and wait for the result')
    .requiredOption('--images <paths...>', 'selfie files or directories of .jpg/.png files')
    .requiredOption('--styles <ids>', 'comma-separated style ids, e.g. 1,2,3')
    .requiredOption('--gender <1|2>', '1 = woman, 2 = man')
    .option('--main-image <n>', 'position of the main training image among the selfies (1 = first)', '1')
    .option('--subject <id>', 'a name for the person, shown in the Temporal UI')
    .option('--request-id <id>', 'idempotency key: the same id attaches to the same run')
    .option('--json', 'print exactly one JSON document (the result) on stdout; progress goes to stderr')
    .action(async (options: RunOptions) => {
      try {
        process.exitCode = await runPipeline(options);
      } catch (err) {
        reportError(err);
      }
    });
}

async function runPipeline(options: RunOptions): Promise<number> {
  const config = loadConfig();
  const images = await resolveImagePaths(options.images);
  const input = validatePipelineRequest({
    images,
    styles: options.styles.split(',').map((s) => (s.trim() === '' ? s : Number(s))),
    gender: Number(options.gender),
    mainImageIndex: Number(options.mainImage) - 1,
    ...(options.subject ? { subjectId: options.subject } : {}),
  });
  const client = await connectClient(config.temporal);
  try {
    const handle = await startPipeline(client, input, {
      taskQueue: config.temporal.taskQueue,
      ...(options.requestId ? { requestId: options.requestId } : {}),
    });
    console.error(`started ${handle.workflowId}`);
    const watching = watchProgress(handle);
    try {
      const result = await handle.result();
      if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else console.log(summarize(result));
      return EXIT.ok;
    } catch (err) {
      console.error(`pipeline ${handle.workflowId} failed: ${rootMessage(err)}`);
      return EXIT.failed;
    } finally {
      watching.stop();
    }
  } finally {
    await client.connection.close();
  }
}

function watchProgress(handle: PipelineHandle) {
  let stopped = false;
  let last = '';
  void (async () => {
    while (!stopped) {
      const line = await handle.progress().then(describeProgress, () => undefined);
      if (line && line !== last && !stopped) console.error(line);
      last = line ?? last;
      await delay(1000);
    }
  })();
  return { stop: () => void (stopped = true) };
}

function summarize(result: Awaited<ReturnType<PipelineHandle['result']>>): string {
  const lines = [`${result.workflowId}: model ${result.modelId}, ${result.status}`];
  for (const g of result.generations) {
    lines.push(
      `  style ${g.styleId}: ${g.status}, ${g.avatars.length} avatars${g.error ? ` (${g.error})` : ''}`,
    );
    for (const a of g.avatars) lines.push(`    ${a.imageUrl}`);
  }
  return lines.join('\n');
}

function rootMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

import type { Command } from 'commander';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createPipelineClient } from '@avatar-pipeline/client/client/pipeline-client';
import type { PipelineProgress } from '@avatar-pipeline/client/contracts/pipeline-state';
import type { ReviewDecision, ReviewProgress } from '@avatar-pipeline/client/contracts/review';
import { InputError } from '@avatar-pipeline/client/errors';
import { EXIT } from '../exit-codes';
import { reportError } from '../fail';
import { printableJson, writeLines } from '../printable';

interface ReviewFlags {
  approve?: string;
  reject?: string;
  regenerate?: string;
  approveAvatars?: string;
  rejectAvatars?: string;
  requestId?: string;
  json?: boolean;
}

export function registerReviewCommand(program: Command): void {
  program
    .command('review')
    .description('Show what a run held for review waits for, or decide: approve, reject or regenerate styles')
    .argument('<workflowId>', 'a run started with review (`run --review`, or `review: { required: true }`)')
    .option('--approve <styles>', 'comma-separated style ids to approve (all their avatars)')
    .option('--reject <styles>', 'comma-separated style ids to reject')
    .option('--regenerate <styles>', 'comma-separated style ids to order again and review again')
    .option('--approve-avatars <avatars>', 'comma-separated avatar ids to approve one by one')
    .option('--reject-avatars <avatars>', 'comma-separated avatar ids to reject one by one')
    .option('--request-id <id>', 'idempotency key: the same id again is answered as the first was')
    .option('--json', 'print one JSON document: the review after the decisions')
    .addHelpText(
      'after',
      [
        '',
        'Without decisions, shows each style\u2019s state and the avatars awaiting a decision.',
        'A decision on a style not generated yet is kept for when it is; the same decision twice is one.',
        'Exit codes: 0 taken (or shown), 2 refused (each refused decision named; none is taken) or no such run,',
        '1 Temporal unreachable or the run has ended.',
        '',
        'Example: avatar-pipeline review default.avatar-pipeline-5b0c… --approve 3,7 --regenerate 12',
      ].join('\n'),
    )
    .action(async (workflowId: string, flags: ReviewFlags) => {
      try {
        process.exitCode = await review(workflowId, flags);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          writeLines(process.stderr, `avatar-pipeline: workflowId: no run with id ${workflowId}`);
          process.exitCode = EXIT.badInput;
          return;
        }
        reportError(err);
      }
    });
}

async function review(workflowId: string, flags: ReviewFlags): Promise<number> {
  const pipelines = await createPipelineClient();
  try {
    const run = pipelines.get(workflowId);
    const progress = await run.progress();
    const decisions = decisionsFromFlags(flags, progress);
    if (decisions.length === 0) {
      if (!progress.review) throw InputError.field('workflowId', 'this run was started without review');
      print(flags, progress.review);
      return EXIT.ok;
    }
    const answer = await pipelines.review(
      workflowId,
      { decisions },
      { reviewer: { via: 'cli' }, ...(flags.requestId ? { requestId: flags.requestId } : {}) },
    );
    print(flags, answer.review);
    return EXIT.ok;
  } finally {
    await pipelines.close();
  }
}

/** The flags as decisions; an avatar id is looked up among the styles' avatars to name its style. */
function decisionsFromFlags(flags: ReviewFlags, progress: PipelineProgress): ReviewDecision[] {
  const styleDecisions = (
    [
      ['--approve', flags.approve, 'approve'],
      ['--reject', flags.reject, 'reject'],
      ['--regenerate', flags.regenerate, 'regenerate'],
    ] as const
  ).flatMap(([flag, value, decision]) =>
    idsFlag(flag, value).map((styleId): ReviewDecision => ({ styleId, decision })),
  );
  const avatarDecisions = (
    [
      ['--approve-avatars', flags.approveAvatars, 'approve'],
      ['--reject-avatars', flags.rejectAvatars, 'reject'],
    ] as const
  ).flatMap(([flag, value, decision]) =>
    idsFlag(flag, value).map((avatarId): ReviewDecision => {
      const style = progress.styles.find((s) => s.avatars?.some((a) => a.avatarId === avatarId));
      if (!style) throw InputError.field(flag, `avatar ${avatarId} is not one of this run's avatars`);
      return { styleId: style.styleId, avatarId, decision };
    }),
  );
  return [...styleDecisions, ...avatarDecisions];
}

function idsFlag(flag: string, value: string | undefined): number[] {
  if (value === undefined) return [];
  return value.split(',').map((item) => {
    const trimmed = item.trim();
    if (!/^[1-9]\d*$/.test(trimmed))
      throw InputError.field(flag, `"${trimmed}" is not an id (a whole number)`);
    return Number(trimmed);
  });
}

function print(flags: ReviewFlags, review: ReviewProgress): void {
  if (flags.json) {
    process.stdout.write(printableJson(review));
    return;
  }
  const deadline = review.deadlineAt ? `; deadline ${review.deadlineAt}, then ${review.onDeadline}` : '';
  const lines = [`review ${review.state}${deadline}${review.deadlinePassed ? ' (deadline passed)' : ''}`];
  for (const style of review.styles) {
    const order = style.orderId !== undefined ? ` (order ${style.orderId})` : '';
    const kept = style.kept ? `, "${style.kept}" kept for its avatars` : '';
    const decided = style.avatars.length > 0 ? `, ${style.avatars.length} avatars decided` : '';
    lines.push(`  style ${style.styleId}: ${style.state}${order}${kept}${decided}`);
  }
  writeLines(process.stdout, lines.join('\n'));
}

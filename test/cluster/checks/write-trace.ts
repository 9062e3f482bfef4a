import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CampaignSummary } from '../../../src/campaign/contracts/campaign';
import type { SimulatorStats } from '../../../src/simulator';

/** Activities whose provider calls write, and the messages that trace one of their attempts. */
const WRITE_ACTIVITIES = new Set(['createModel', 'uploadSelfie', 'createGenerationOrder', 'runOrder']);
const TRACED_MESSAGES = new Set([
  'provider call',
  'provider call failed',
  'Activity started',
  'Activity completed',
  'Activity failed',
]);

interface LogEntry {
  time: string;
  message: string;
  workflowId?: string;
  activityType?: string;
  activityId?: string;
  attempt?: number;
  endpoint?: string;
  method?: string;
  outcome?: string;
  httpStatus?: number;
  durationMs?: number;
  error?: { message?: string };
}

/**
 * The trace of a failed "nothing duplicated at the provider" check, for the log: per subject the
 * check refused (`subjectIds`, from subjectsOffCount), its model and that model's orders at the
 * provider and every attempt of its write activities as the workers logged them (which worker,
 * attempt, provider calls with their outcome and duration). A duplicate seen only now and then is
 * explained by the run that shows it, not by a rerun.
 */
export function traceDuplicateWrites(
  logDir: string,
  summary: CampaignSummary,
  stats: SimulatorStats,
  subjectIds: string[],
): string {
  const entries = readdirSync(logDir)
    .filter((file) => /^worker-.*\.log$/.test(file))
    .flatMap((file) =>
      readFileSync(path.join(logDir, file), 'utf8')
        .split('\n')
        .flatMap((line) => {
          if (!line.startsWith('{')) return [];
          try {
            const entry = JSON.parse(line) as LogEntry;
            return TRACED_MESSAGES.has(entry.message) && WRITE_ACTIVITIES.has(entry.activityType ?? '')
              ? [{ worker: file.replace(/\.log$/, ''), ...entry }]
              : [];
          } catch {
            return [];
          }
        }),
    )
    .sort((a, b) => a.time.localeCompare(b.time));
  const lines: string[] = [];
  for (const subject of summary.subjects.filter((s) => subjectIds.includes(s.subjectId))) {
    lines.push(`${subject.subjectId} (${subject.workflowId}), model ${subject.modelId ?? 'none'}:`);
    const orders = stats.orders.filter((o) => o.id === subject.modelId || o.parent === subject.modelId);
    for (const o of orders)
      lines.push(
        `  order ${o.id} ${o.kind} styles [${o.styles.join(',')}] ${o.status} runs ${o.runs} runAttempts ${o.runAttempts}`,
      );
    for (const e of entries.filter((entry) => entry.workflowId === subject.workflowId)) {
      const call = e.endpoint
        ? ` ${e.method} ${e.endpoint} ${e.outcome} ${e.httpStatus ?? ''} ${e.durationMs} ms`
        : '';
      const error = e.error?.message ? ` (${e.error.message})` : '';
      lines.push(
        `  ${e.time} ${e.worker} ${e.activityType}#${e.activityId} attempt ${e.attempt}: ${e.message}${call}${error}`,
      );
    }
  }
  return lines.join('\n');
}

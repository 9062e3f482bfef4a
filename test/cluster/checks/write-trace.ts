import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CampaignSummary } from '@avatar-pipeline/client/contracts/campaign/campaign';
import type { OrderStats, SimulatorStats } from '../../../src/simulator';

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
  /** The id a write's answer carried (packages/client/src/provider/http-transport.ts). */
  resultId?: number;
  error?: { message?: string };
}

/**
 * Provider orders that fit no subject: a model no subject holds, or a generation order under none
 * of their models. Each is a write a lost answer left behind that nobody adopted.
 */
export function ordersOfNoSubject(summary: CampaignSummary, stats: SimulatorStats): OrderStats[] {
  const models = new Set(summary.subjects.flatMap((s) => (s.modelId === undefined ? [] : [s.modelId])));
  return stats.orders.filter((o) => (o.kind === 'model' ? !models.has(o.id) : !models.has(o.parent)));
}

/** Fails naming every provider order that fits no subject, so an orphan is named, not only counted. */
export function expectNoOrdersOfNoSubject(summary: CampaignSummary, stats: SimulatorStats): void {
  const orphans = ordersOfNoSubject(summary, stats);
  if (orphans.length > 0) {
    throw new Error(`provider orders that fit no subject: ${orphans.map(describeOrder).join('; ')}`);
  }
}

function describeOrder(o: OrderStats): string {
  const parent = o.kind === 'generation' ? ` under model ${o.parent}` : '';
  return `${o.kind} ${o.id}${parent} styles [${o.styles.join(',')}] ${o.status}`;
}

/**
 * The trace of a failed "nothing duplicated at the provider" check, for the log: per subject the
 * check refused (`subjectIds`, from subjectsOffCount), its model and that model's orders at the
 * provider and every attempt of its write activities as the workers logged them (which worker,
 * attempt, provider calls with their outcome, duration and the id a write's answer carried); then
 * every order that fits no subject, with the write attempts whose answer carried its id (none when
 * the answer was lost). A duplicate or orphan seen only now and then is explained by the run that
 * shows it, not by a rerun.
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
  const traceLine = (e: (typeof entries)[number]) => {
    const call = e.endpoint
      ? ` ${e.method} ${e.endpoint} ${e.outcome} ${e.httpStatus ?? ''} ${e.durationMs} ms`
      : '';
    const returned = e.resultId !== undefined ? ` -> id ${e.resultId}` : '';
    const error = e.error?.message ? ` (${e.error.message})` : '';
    return `  ${e.time} ${e.worker} ${e.activityType}#${e.activityId} attempt ${e.attempt}: ${e.message}${call}${returned}${error}`;
  };
  for (const subject of summary.subjects.filter((s) => subjectIds.includes(s.subjectId))) {
    lines.push(`${subject.subjectId} (${subject.workflowId}), model ${subject.modelId ?? 'none'}:`);
    const orders = stats.orders.filter((o) => o.id === subject.modelId || o.parent === subject.modelId);
    for (const o of orders)
      lines.push(
        `  order ${o.id} ${o.kind} styles [${o.styles.join(',')}] ${o.status} runs ${o.runs} runAttempts ${o.runAttempts}`,
      );
    for (const e of entries.filter((entry) => entry.workflowId === subject.workflowId))
      lines.push(traceLine(e));
  }
  const orphans = ordersOfNoSubject(summary, stats);
  if (orphans.length > 0) lines.push('orders that fit no subject:');
  for (const o of orphans) {
    const creator = o.kind === 'model' ? 'createModel' : 'createGenerationOrder';
    const madeBy = entries.filter((e) => e.activityType === creator && e.resultId === o.id);
    lines.push(
      `  ${describeOrder(o)}: ${madeBy.length > 0 ? 'returned by' : 'no logged write returned its id'}`,
    );
    for (const e of madeBy) lines.push(`  ${traceLine(e).trimStart()} (${e.workflowId ?? 'no workflow'})`);
  }
  return lines.join('\n');
}

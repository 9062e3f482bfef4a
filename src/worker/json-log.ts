import type { LogEntry } from '@temporalio/worker';

/** Metadata keys whose values are never written, whatever logged them. */
const SECRET_KEY = /authorization|api[-_]?key|token|secret|password|cookie/i;

/** One log entry as one JSON line: time, level, message, then the entry's metadata (workflow id, …). */
export function formatJsonLogLine(entry: LogEntry): string {
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const line = { time, level: entry.level.toLowerCase(), message: entry.message, ...entry.meta };
  return JSON.stringify(line, (key, value: unknown) => {
    if (key !== '' && SECRET_KEY.test(key)) return '[redacted]';
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
    return value;
  });
}

/** Writes JSON lines to stderr (stdout stays free for command output). */
export function writeJsonLog(entry: LogEntry): void {
  process.stderr.write(`${formatJsonLogLine(entry)}\n`);
}

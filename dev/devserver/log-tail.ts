import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * The last `maxLines` lines of a (possibly huge) log file, ignoring everything before
 * `fromOffset` (earlier runs appended to the same file); empty when it cannot be read.
 */
export function readLogTail(filePath: string, fromOffset = 0, maxLines = 30, maxBytes = 16_384): string {
  let fd: number | undefined;
  try {
    fd = openSync(filePath, 'r');
    const size = fstatSync(fd).size;
    const start = Math.max(fromOffset, size - maxBytes);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    readSync(fd, buffer, 0, buffer.length, start);
    return buffer.toString('utf8').trimEnd().split('\n').slice(-maxLines).join('\n');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

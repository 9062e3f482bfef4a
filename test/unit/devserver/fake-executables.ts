import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function makeTempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'devserver-test-'));
}

/** A shell script standing in for a real binary; lookup only checks that it is an executable file. */
export function writeFakeExecutable(filePath: string, mode = 0o755): string {
  mkdirSync(path.dirname(filePath), { recursive: true });
  writeFileSync(filePath, '#!/bin/sh\nexit 0\n');
  chmodSync(filePath, mode);
  return filePath;
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findPackageRoot } from '../config/package-root';

/** This package's version, for the OpenAPI document. */
export function packageVersion(): string {
  try {
    const manifest = JSON.parse(
      readFileSync(path.join(findPackageRoot(__dirname), 'package.json'), 'utf8'),
    ) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { isValidKey } from './blob-keys';

export interface S3Location {
  bucket: string;
  /** Key prefix inside the bucket: empty, or segments ending in `/`. */
  prefix: string;
}

export type StorageTarget = { kind: 'fs'; dir: string } | ({ kind: 's3' } & S3Location);

/** S3's bucket naming rules (lowercase letters, digits, dots and hyphens, 3-63 long). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * STORAGE_URL: `s3://bucket` or `s3://bucket/prefix` for object storage, `file:///dir` or a
 * directory path for the filesystem (relative paths resolve against `cwd`).
 */
export function storageUrlSchema(cwd: string) {
  return z.string().transform((value, ctx): StorageTarget => {
    const text = value.trim();
    if (/^s3:\/\//i.test(text)) {
      const [bucket = '', ...rest] = text.slice('s3://'.length).split('/');
      if (!BUCKET.test(bucket)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${bucket}" is not an S3 bucket name (s3://bucket/prefix)`,
        });
        return z.NEVER;
      }
      const prefix = rest.filter((segment) => segment !== '').join('/');
      if (prefix !== '' && !isValidKey(prefix)) {
        ctx.addIssue({
          code: 'custom',
          message: 'the prefix must be segments of letters, digits, ".", "_", "-"',
        });
        return z.NEVER;
      }
      return { kind: 's3', bucket, prefix: prefix === '' ? '' : `${prefix}/` };
    }
    if (/^file:/i.test(text)) return { kind: 'fs', dir: fileURLToPath(text) };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be s3://bucket/prefix, file:///dir or a directory path',
      });
      return z.NEVER;
    }
    return { kind: 'fs', dir: path.resolve(cwd, text) };
  });
}

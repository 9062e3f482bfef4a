import { z } from 'zod';
import { storageUrlSchema, type StorageTarget } from './storage-url';
import type { S3Connection } from './s3-blob-store';
import { AvatarPipelineError } from '../errors';

export interface StorageSettings {
  target: StorageTarget;
  /** Only used by the S3 backend. */
  s3: S3Connection;
}

const blank = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optionalText = z.preprocess(blank, z.string().optional());
const optionalUrl = z.preprocess(blank, z.url({ error: 'must be a URL' }).optional());

/**
 * The variables the AWS tools read, so a deployment configures the store as it configures them;
 * described for the generated configuration reference (docs/configuration.md).
 */
export const awsEnvSchema = z
  .object({
    AWS_ENDPOINT_URL_S3: optionalUrl.describe(
      'S3 endpoint of an S3-compatible server (any but AWS itself), for an `s3://` STORAGE_URL.',
    ),
    AWS_ENDPOINT_URL: optionalUrl.describe('Endpoint of every AWS service; AWS_ENDPOINT_URL_S3 wins for S3.'),
    AWS_REGION: optionalText.describe('Region of the bucket. Unset: AWS_DEFAULT_REGION, else `us-east-1`.'),
    AWS_DEFAULT_REGION: optionalText.describe('Region when AWS_REGION is unset.'),
    AWS_ACCESS_KEY_ID: optionalText.describe(
      "Access key of the bucket, with AWS_SECRET_ACCESS_KEY. Unset (both): the AWS SDK's own credential chain.",
    ),
    AWS_SECRET_ACCESS_KEY: optionalText.describe('Secret of AWS_ACCESS_KEY_ID; set both or neither.'),
  })
  .refine((env) => (env.AWS_ACCESS_KEY_ID === undefined) === (env.AWS_SECRET_ACCESS_KEY === undefined), {
    path: ['AWS_SECRET_ACCESS_KEY'],
    message: 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together: set both or neither',
  });

/** A filesystem store at `dir`: what BLOB_DIR gives, for configurations built by hand (tests, benchmarks). */
export function filesystemStorage(dir: string): StorageSettings {
  return {
    target: { kind: 'fs', dir },
    s3: { endpoint: undefined, region: 'us-east-1', credentials: undefined, forcePathStyle: false },
  };
}

export interface StorageSettingsIssue {
  variable: string;
  reason: string;
}

export class StorageSettingsError extends AvatarPipelineError {
  constructor(readonly issues: StorageSettingsIssue[]) {
    super(`invalid storage settings:\n${issues.map((i) => `  ${i.variable}: ${i.reason}`).join('\n')}`);
  }
}

/**
 * Where blobs go: STORAGE_URL, else the filesystem at `defaultDir`. Endpoint, region and
 * credentials of an S3 store come from the usual AWS variables; without keys the SDK's own chain
 * (profile, instance role) applies.
 */
export function storageSettingsFromEnv(
  env: NodeJS.ProcessEnv,
  defaultDir: string,
  cwd = process.cwd(),
): StorageSettings {
  const issues: StorageSettingsIssue[] = [];
  const url = blank(env.STORAGE_URL);
  let target: StorageTarget = storageUrlSchema(cwd).parse(defaultDir);
  if (typeof url === 'string') {
    const parsed = storageUrlSchema(cwd).safeParse(url);
    if (parsed.success) target = parsed.data;
    else
      issues.push(
        ...parsed.error.issues.map((issue) => ({ variable: 'STORAGE_URL', reason: issue.message })),
      );
  }
  const aws = awsEnvSchema.safeParse(env);
  if (!aws.success) {
    issues.push(
      ...aws.error.issues.map((issue) => ({
        variable: issue.path.map(String).join('.'),
        reason: issue.message,
      })),
    );
  }
  if (issues.length > 0 || !aws.success) throw new StorageSettingsError(issues);
  const a = aws.data;
  const endpoint = a.AWS_ENDPOINT_URL_S3 ?? a.AWS_ENDPOINT_URL;
  return {
    target,
    s3: {
      endpoint,
      region: a.AWS_REGION ?? a.AWS_DEFAULT_REGION ?? 'us-east-1',
      credentials:
        a.AWS_ACCESS_KEY_ID !== undefined && a.AWS_SECRET_ACCESS_KEY !== undefined
          ? { accessKeyId: a.AWS_ACCESS_KEY_ID, secretAccessKey: a.AWS_SECRET_ACCESS_KEY }
          : undefined,
      // S3-compatible servers are usually reached by address, where virtual-host buckets cannot resolve.
      forcePathStyle: endpoint !== undefined,
    },
  };
}

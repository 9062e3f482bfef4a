import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertValidKey, assertValidPrefix, isValidKey } from './blob-keys';
import type { BlobInfo, BlobStore, StoredBlob } from './blob-store';
import { DEFAULT_CONTENT_TYPE } from './content-types';
import type { S3Location } from './storage-url';

export interface S3Connection {
  /** An S3-compatible server (MinIO, versitygw, …); undefined means AWS itself. */
  endpoint: string | undefined;
  region: string;
  /** Undefined leaves credentials to the SDK's chain (environment, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** Bucket in the path instead of the host name: what S3-compatible servers without DNS setup need. */
  forcePathStyle: boolean;
}

/** A request that has not answered by then is failed, so a hung store fails the activity, which retries. */
const REQUEST_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** Objects in an S3 bucket under a key prefix, through the AWS SDK. */
export class S3BlobStore implements BlobStore {
  readonly location: string;
  private readonly client: S3Client;

  constructor(
    private readonly where: S3Location,
    connection: S3Connection,
  ) {
    this.location = `s3://${where.bucket}${where.prefix === '' ? '' : `/${where.prefix.slice(0, -1)}`}`;
    this.client = new S3Client({
      endpoint: connection.endpoint,
      region: connection.region,
      credentials: connection.credentials,
      forcePathStyle: connection.forcePathStyle,
      // Checksums only where S3 requires them: several S3-compatible servers reject the newer ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    });
  }

  async put(key: string, body: Buffer, contentType: string): Promise<BlobInfo> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.where.bucket,
        Key: this.objectKey(key),
        Body: body,
        ContentType: contentType,
        ContentLength: body.length,
      }),
    );
    return { key, bytes: body.length, contentType };
  }

  async get(key: string): Promise<StoredBlob | undefined> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.where.bucket, Key: this.objectKey(key) }),
      );
      if (!(answer.Body instanceof Readable)) throw new Error(`GetObject ${key}: the body is not a stream`);
      return {
        info: {
          key,
          bytes: answer.ContentLength ?? 0,
          contentType: answer.ContentType ?? DEFAULT_CONTENT_TYPE,
        },
        body: answer.Body,
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    try {
      const answer = await this.client.send(
        new HeadObjectCommand({ Bucket: this.where.bucket, Key: this.objectKey(key) }),
      );
      return {
        key,
        bytes: answer.ContentLength ?? 0,
        contentType: answer.ContentType ?? DEFAULT_CONTENT_TYPE,
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.where.bucket, Key: this.objectKey(key) }));
  }

  async list(prefix: string): Promise<BlobInfo[]> {
    assertValidPrefix(prefix);
    const found: BlobInfo[] = [];
    const pages = paginateListObjectsV2(
      { client: this.client },
      { Bucket: this.where.bucket, Prefix: `${this.where.prefix}${prefix}` },
    );
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(this.where.prefix.length);
        // Objects someone else put under the prefix with keys this store would not write are not ours.
        if (key === undefined || !isValidKey(key)) continue;
        // ListObjects reports no content type; callers that need it ask head().
        found.push({ key, bytes: object.Size ?? 0, contentType: DEFAULT_CONTENT_TYPE });
      }
    }
    return found;
  }

  async listKeys(prefix: string): Promise<string[]> {
    return (await this.list(prefix)).map((object) => object.key);
  }

  signedUrl(key: string, expiresInSeconds: number): Promise<string | undefined> {
    const command = new GetObjectCommand({ Bucket: this.where.bucket, Key: this.objectKey(key) });
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds });
  }

  referenceOf(key: string): string {
    return `s3://${this.where.bucket}/${this.objectKey(key)}`;
  }

  keyOf(reference: string): string | undefined {
    const root = `s3://${this.where.bucket}/${this.where.prefix}`;
    if (!reference.startsWith(root)) return undefined;
    const key = reference.slice(root.length);
    return isValidKey(key) ? key : undefined;
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    return `${this.where.prefix}${assertValidKey(key)}`;
  }
}

function isNotFound(err: unknown): boolean {
  return (
    err instanceof S3ServiceException &&
    (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404)
  );
}

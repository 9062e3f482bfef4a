import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { findS3TestServer } from '../../dev/devserver/tools';
import { findFreePort } from '../../dev/devserver/free-port';
import { readLogTail } from '../../dev/devserver/log-tail';
import type { S3Connection } from '../../src/storage';

/** versitygw on loopback with a POSIX backend in `dataDir`: a real S3 server, run as its own process group. */
export interface S3TestServer {
  readonly endpoint: string;
  readonly connection: S3Connection;
  /** The AWS variables (and STORAGE_URL) that point a process at `bucket` under `prefix`. */
  env(bucket: string, prefix?: string): Record<string, string>;
  createBucket(bucket: string): Promise<void>;
  /** Stops the server (the whole process group); the data stays for a restart. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data, as after an outage. */
  restart(): Promise<void>;
  readonly running: boolean;
}

const START_TIMEOUT_MS = 30_000;
const HEALTH_PATH = '/health';

export async function startS3TestServer(dataDir: string): Promise<S3TestServer> {
  const binary = await findS3TestServer();
  const objectsDir = path.join(dataDir, 'objects');
  const metaDir = path.join(dataDir, 'meta');
  mkdirSync(objectsDir, { recursive: true });
  mkdirSync(metaDir, { recursive: true });
  const logFile = path.join(dataDir, 'versitygw.log');
  const accessKeyId = `test-${randomBytes(4).toString('hex')}`;
  const secretAccessKey = randomBytes(16).toString('hex');
  const port = await findFreePort();
  const endpoint = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const log = openSync(logFile, 'a');
    try {
      child = spawn(
        binary,
        // Metadata in a sidecar directory, so the data directory's filesystem needs no extended attributes.
        [
          '--port',
          `127.0.0.1:${port}`,
          '--health',
          HEALTH_PATH,
          '--quiet',
          'posix',
          '--sidecar',
          metaDir,
          objectsDir,
        ],
        {
          env: {
            PATH: process.env.PATH ?? '',
            ROOT_ACCESS_KEY_ID: accessKeyId,
            ROOT_SECRET_ACCESS_KEY: secretAccessKey,
          },
          stdio: ['ignore', log, log],
          detached: true, // its own process group, so stop() reaches any child it starts
        },
      );
    } finally {
      closeSync(log);
    }
    const started = child;
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (started.exitCode !== null || started.signalCode !== null) {
        throw new Error(`versitygw exited during start:\n${readLogTail(logFile)}`);
      }
      if (await answersHealth(`${endpoint}${HEALTH_PATH}`)) return;
      if (Date.now() > deadline) {
        await stopGroup(started);
        throw new Error(`versitygw did not answer within ${START_TIMEOUT_MS} ms:\n${readLogTail(logFile)}`);
      }
      await delay(100);
    }
  };

  await launch();
  const connection: S3Connection = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId, secretAccessKey },
    forcePathStyle: true,
  };
  return {
    endpoint,
    connection,
    env: (bucket, prefix = '') => ({
      STORAGE_URL: `s3://${bucket}${prefix === '' ? '' : `/${prefix}`}`,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    }),
    createBucket: async (bucket) => {
      const client = new S3Client({ ...connection });
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
      } finally {
        client.destroy();
      }
    },
    stop: async () => {
      if (child !== undefined) await stopGroup(child);
    },
    restart: async () => {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        throw new Error('versitygw is still running');
      }
      await launch();
    },
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
  };
}

async function answersHealth(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** SIGTERM to the process group, SIGKILL after 5 s; resolves once the leader has exited. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  signalGroup('SIGTERM');
  const timer = setTimeout(() => signalGroup('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

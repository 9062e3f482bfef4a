import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ProcessGroup } from './process-group';

/** Debian's PostgreSQL 15 (scripts/cluster/prepare.sh installs it when missing). */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

export interface PostgresOptions {
  /** A directory of this run; the data directory is made inside it. */
  dir: string;
  port: number;
  user: string;
  password: string;
}

/**
 * PostgreSQL does not run as root: as root, its commands run as the `postgres` user Debian's
 * package creates (owning the data directory); otherwise as whoever runs the tests.
 */
function asDatabaseUser(command: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command, args };
  return { command: 'runuser', args: ['-u', 'postgres', '--', command, ...args] };
}

function databaseUserIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A throwaway PostgreSQL server on loopback: initdb in a fresh data directory, then `postgres`. */
export class Postgres {
  private constructor(
    readonly options: PostgresOptions,
    private readonly server: ProcessGroup,
  ) {}

  static async start(options: PostgresOptions): Promise<Postgres> {
    const dataDir = path.join(options.dir, 'pgdata');
    mkdirSync(dataDir, { mode: 0o700 });
    const pwFile = path.join(options.dir, 'pgpass');
    writeFileSync(pwFile, `${options.password}\n`, { mode: 0o600 });
    const ids = databaseUserIds();
    if (ids) {
      chownSync(dataDir, ids.uid, ids.gid);
      chownSync(pwFile, ids.uid, ids.gid);
    }
    const initdb = asDatabaseUser(path.join(POSTGRES_BIN, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      options.user,
      `--pwfile=${pwFile}`,
      // Clients connect over TCP with the password, as the Temporal server does in compose.
      '--auth-host=scram-sha-256',
      '--auth-local=trust',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    await ProcessGroup.run(
      {
        name: 'initdb',
        ...initdb,
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8' },
        logFile: path.join(options.dir, 'initdb.log'),
      },
      120_000,
    );
    const postgres = asDatabaseUser(path.join(POSTGRES_BIN, 'postgres'), [
      '-D',
      dataDir,
      '-p',
      String(options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${dataDir}`,
      '-c',
      'fsync=off',
    ]);
    const server = ProcessGroup.start({
      name: 'postgres',
      ...postgres,
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8' },
      logFile: path.join(options.dir, 'postgres.log'),
    });
    const pg = new Postgres(options, server);
    await pg.waitUntilAccepting(60_000);
    return pg;
  }

  private async waitUntilAccepting(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (
      !this.server.text().includes('ready to accept connections') ||
      !(await canConnect(this.options.port))
    ) {
      this.server.assertRunning();
      if (Date.now() > deadline) throw new Error(`PostgreSQL not ready after ${timeoutMs} ms`);
      await delay(100);
    }
  }

  /** Runs SQL with psql on `database` and returns its unaligned, tuples-only output. */
  query(database: string, sql: string): string {
    const psql = asDatabaseUser(path.join(POSTGRES_BIN, 'psql'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(this.options.port),
      '-U',
      this.options.user,
      '-d',
      database,
      '-At',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      sql,
    ]);
    return execFileSync(psql.command, psql.args, {
      env: { PATH: process.env.PATH, PGPASSWORD: this.options.password },
    }).toString();
  }

  stop(): Promise<number | string> {
    // SIGINT: PostgreSQL's fast shutdown.
    return this.server.stop('SIGINT', 30_000);
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

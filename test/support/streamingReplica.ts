// A PostgreSQL primary and a streaming standby of their own (initdb, then pg_basebackup from
// the running primary), each in a temporary directory on its own port on 127.0.0.1, for the
// tests of reads on replicas.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, postgresBinDir } from './postgresServer.ts';

const run = promisify(execFile);

export interface StreamingPair {
  primaryUrl: string;
  standbyUrl: string;
  /** Runs a statement on the standby itself (its statistics, its replay controls). */
  onStandby<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  stopPrimary(): Promise<void>;
  startPrimary(): Promise<void>;
  destroy(): Promise<void>;
}

/** Why the pair cannot be made here, or undefined when it can. */
export function streamingPairUnavailable(): string | undefined {
  const bin = postgresBinDir();
  if (!bin) return 'PostgreSQL server binaries (initdb, pg_basebackup) not found under /usr/lib/postgresql/*/bin';
  if (!fs.existsSync(path.join(bin, 'pg_basebackup'))) return `pg_basebackup not found in ${bin}`;
  return undefined;
}

/** initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user, who owns the directory. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * The standby replays WAL `applyDelay` after the primary committed it (recovery_min_apply_delay).
 * `durable`: production settings (fsync on, each commit acknowledged once the standby has flushed it); by default neither, for speed.
 */
export async function startStreamingPair({ applyDelay = '3s', durable = false }: { applyDelay?: string; durable?: boolean } = {}): Promise<StreamingPair> {
  const bin = postgresBinDir()!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-pair-'));
  if (process.getuid?.() === 0) await run('chown', ['postgres:postgres', dir]);
  const primaryDir = path.join(dir, 'primary');
  const standbyDir = path.join(dir, 'standby');
  const tool = (name: string, ...args: string[]) => run(...asServerUser(path.join(bin, name), args));
  const primaryPort = await freePort();
  const standbyPort = await freePort();
  const common = `-k ${dir} -c listen_addresses=127.0.0.1 ${durable ? '' : '-c fsync=off -c full_page_writes=off'}`;
  const primaryOptions = `-p ${primaryPort} ${common} -c wal_level=replica -c max_wal_senders=5${durable ? ` -c synchronous_standby_names='*'` : ''}`;
  const standbyOptions = `-p ${standbyPort} ${common} -c hot_standby=on -c hot_standby_feedback=on -c recovery_min_apply_delay=${applyDelay}`;
  const pgCtl = (dataDir: string, ...args: string[]) => tool('pg_ctl', '-D', dataDir, '-w', '-t', '60', ...args);

  await tool('initdb', '-D', primaryDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8');
  // The server logs to a file: one started without -l keeps pg_ctl's stdout open, and execFile waits for it forever.
  const startPrimary = () => pgCtl(primaryDir, '-o', primaryOptions, '-l', path.join(dir, 'primary.log'), 'start').then(() => undefined);
  await startPrimary();
  let standbyRunning = false;
  const destroy = async () => {
    if (standbyRunning) await pgCtl(standbyDir, '-m', 'immediate', 'stop').catch(() => undefined);
    await pgCtl(primaryDir, '-m', 'immediate', 'stop').catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const startStandby = async () => {
    await pgCtl(standbyDir, '-o', standbyOptions, '-l', path.join(dir, 'standby.log'), 'start');
    standbyRunning = true;
  };
  try {
    // -R writes standby.signal and primary_conninfo; -X stream copies the WAL written meanwhile.
    await tool('pg_basebackup', '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '--no-sync');
    await startStandby();
  } catch (error) {
    await destroy();
    throw error;
  }
  const standbyUrl = `postgresql://postgres@127.0.0.1:${standbyPort}/postgres`;
  return {
    primaryUrl: `postgresql://postgres@127.0.0.1:${primaryPort}/postgres`,
    standbyUrl,
    async onStandby<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: standbyUrl });
      await client.connect();
      try {
        return (await client.query<T>(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async stopStandby() {
      await pgCtl(standbyDir, '-m', 'fast', 'stop');
      standbyRunning = false;
    },
    startStandby,
    async stopPrimary() {
      await pgCtl(primaryDir, '-m', 'fast', 'stop');
    },
    startPrimary,
    destroy,
  };
}

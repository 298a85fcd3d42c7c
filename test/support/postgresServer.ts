// A PostgreSQL server of a test's own (initdb in a temporary directory, its own port on
// 127.0.0.1), for tests that stop or restart the database under a running service
// without disturbing the shared server every other test uses.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PostgresServer {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  start(): Promise<void>;
  /** Fast shutdown: open connections are terminated (57P01), as when an operator restarts the server. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Stops the server and deletes its directory. */
  destroy(): Promise<void>;
}

/** Where Debian keeps the server binaries (`/usr/lib/postgresql/<major>/bin`); undefined when not installed. */
export function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return undefined;
  const major = fs.readdirSync(base).filter((name) => fs.existsSync(path.join(base, name, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))[0];
  return major ? path.join(base, major, 'bin') : undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user, who owns the directory. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-own-'));
  const dataDir = path.join(dir, 'data');
  if (process.getuid?.() === 0) await run('chown', ['postgres:postgres', dir]);
  const pgCtl = (...args: string[]) => run(...asServerUser(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-w', '-t', '60', ...args]));
  await run(...asServerUser(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']));
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  // The server logs to a file: one started without -l keeps pg_ctl's stdout open, and execFile waits for it forever.
  const log = ['-l', path.join(dir, 'server.log')];
  const start = async () => {
    await pgCtl('-o', options, ...log, 'start');
  };
  await start();
  let running = true;
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await start();
      running = true;
    },
    async stop() {
      await pgCtl('-m', 'fast', 'stop');
      running = false;
    },
    async restart() {
      await pgCtl('-m', 'fast', '-o', options, ...log, 'restart');
      running = true;
    },
    async destroy() {
      if (running) await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

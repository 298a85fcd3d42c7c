// `npm start` as a process manager or a container runs it: SIGINT and SIGTERM sent to
// the npm process end the server gracefully (port freed, embedded database lock
// released); demo credentials are printed only while they work on the database in use;
// newcomer mistakes (port taken, missing PostgreSQL database) read as one sentence
// before any migration or seeding.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { databaseName } from '../support/globalSetup.ts';

/** main.ts's own deadline is 25 s; an idle server must be far quicker. */
const SHUTDOWN_LIMIT_MS = 15_000;
const postgres = process.env.TEST_DATABASE_URL;

let dir: string;
let databaseUrl: string;
let dropDatabase: (() => Promise<void>) | undefined;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-test-'));
  if (postgres) {
    const name = `t_${inject('runId')}_start_${crypto.randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgres });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    databaseUrl = databaseName(postgres, name);
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: postgres });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => c.end());
    };
  } else {
    databaseUrl = `pglite:${path.join(dir, 'db')}`;
  }
});
afterAll(async () => {
  await dropDatabase?.();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  base: string;
  out: () => string;
  err: () => string;
}

function output(child: ChildProcess) {
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  return { out: () => out, err: () => err };
}

async function npmStart(env: Record<string, string> = {}): Promise<Started> {
  // detached: its own process group, as under a process manager; signals go to the npm pid only.
  const child = spawn('npm', ['start'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'info', CI: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const { out, err } = output(child);
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(out());
      if (match) {
        clearInterval(timer);
        resolve(match[1]);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited early with ${code}: ${err()}`));
    });
  });
  return { child, base, out, err };
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function portRefuses(base: string): Promise<boolean> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function stopWith(started: Started, signal: NodeJS.Signals): Promise<void> {
  const sent = Date.now();
  process.kill(started.child.pid!, signal);
  const code = await exited(started.child);
  expect(Date.now() - sent).toBeLessThan(SHUTDOWN_LIMIT_MS);
  expect(code).toBe(0);
  expect(started.err()).toContain(`"signal":"${signal}","msg":"stopped"`);
  expect(await portRefuses(started.base)).toBe(true);
  if (!postgres) expect(fs.existsSync(`${path.join(dir, 'db')}.lock`)).toBe(false);
}

async function works(base: string, secret: string): Promise<number> {
  const response = await fetch(`${base}/v3/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ store { id } }' }),
  });
  return response.status;
}

describe('npm start', { timeout: 180_000 }, () => {
  it('seeds and prints working demo credentials, stops on SIGINT to npm; a restart prints only credentials that work, and stops on SIGTERM', async () => {
    const first = await npmStart();
    const printed = /Demo store (str_\w+), secret: (\S+)/.exec(first.out());
    expect(printed, first.out()).not.toBeNull();
    expect(await works(first.base, printed![2])).toBe(200);
    if (postgres) expect(first.err()).toContain('CURSOR_SECRET is not set');
    await stopWith(first, 'SIGINT');

    // A credentials file of some other embedded database lies around: never printed for this one.
    fs.mkdirSync(path.join(dir, 'other'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'other.demo-credentials.json'), JSON.stringify({ storeId: 'str_other', secret: 'sk_other' }));
    const second = await npmStart({ CURSOR_SECRET: 'a-long-random-production-value' });
    expect(second.err()).not.toContain('CURSOR_SECRET is not set');
    if (postgres) {
      // The secret lives only as a hash in PostgreSQL: nothing to print, and nothing stale.
      expect(second.out()).not.toContain('secret:');
      expect(second.out()).toContain('Create an API client');
    } else {
      const again = /Demo store (str_\w+), secret: (\S+)/.exec(second.out());
      expect(again?.[2]).toBe(printed![2]);
      expect(await works(second.base, again![2])).toBe(200);
    }
    expect(second.out()).not.toContain('sk_other');
    await stopWith(second, 'SIGTERM');
  });

  it('reports a port in use before migrating or seeding', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { ...process.env, DATABASE_URL: `pglite:${path.join(dir, 'never-created')}`, PORT: String(port), LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const { err } = output(child);
      expect(await exited(child)).toBe(1);
      expect(err()).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(err()).toContain('set PORT to a free port');
      expect(err()).not.toContain('migrations applied');
      expect(err()).not.toMatch(/\n\s+at /);
      expect(fs.existsSync(path.join(dir, 'never-created'))).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it.skipIf(!postgres)('names a missing PostgreSQL database in one sentence, without a stack trace', async () => {
    const missing = databaseName(postgres!, `missing_${crypto.randomBytes(4).toString('hex')}`);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, DATABASE_URL: missing, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { err } = output(child);
    expect(await exited(child)).toBe(1);
    expect(err()).toMatch(/^cannot start: PostgreSQL database "missing_\w+" does not exist on 127\.0\.0\.1:5432; create it first/);
    expect(err()).not.toMatch(/\n\s+at /);
  });
});

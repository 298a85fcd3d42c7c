// The admin CLI's exact forms (one JSON line each), run as a real child process
// against the same kind of database the suite runs on; on PGlite also next to a
// running server that owns the data directory (the CLI then goes through its socket).
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { databaseName } from '../support/globalSetup.ts';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
// What `npm run cli` runs: the compiled CLI (built first when dist/ is stale), as deployed.
// It also starts in 3.8 s against 5.4 s for src/cli.ts through tsx, over some twenty runs here.
const CLI = [path.resolve('tools/build/cli.mjs')];

let databaseUrl: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  // dist/ is built (when stale) once here, not by the first runs below racing to build it.
  await run(process.execPath, [...CLI, '--help']);
  const postgres = process.env.TEST_DATABASE_URL;
  if (postgres) {
    const name = `t_${inject('runId')}_cli_${crypto.randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgres });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    databaseUrl = databaseName(postgres, name);
    cleanup = async () => {
      const c = new pg.Client({ connectionString: postgres });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => c.end());
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-test-'));
    databaseUrl = `pglite:${path.join(dir, 'db')}`;
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
});
afterAll(async () => cleanup?.());

async function cli(...args: string[]): Promise<{ code: number; out: unknown; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } });
    return { code: 0, out: JSON.parse(stdout.trim()), err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

/** A CLI run with `input` on stdin (the password of `user create`). */
function cliWithInput(input: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, out, err }));
    child.stdin.end(input);
  });
}

// Each CLI run starts a process and opens the database (seconds each, more on a busy machine).
describe('cli', { timeout: 300_000 }, () => {
  it('creates stores, links them, creates and revokes API clients, seeds demo data', async () => {
    const merchant = await cli('store', 'create', '--name', 'Shop A');
    expect(merchant.code).toBe(0);
    expect(merchant.out).toEqual({ id: expect.stringMatching(/^str_/) });
    const service = await cli('store', 'create', '--name', '3PL', '--kind', 'FULFILLMENT_SERVICE');
    expect(service.out).toEqual({ id: expect.stringMatching(/^str_/) });
    const merchantId = (merchant.out as { id: string }).id;
    const serviceId = (service.out as { id: string }).id;

    expect((await cli('store', 'link', '--merchant', merchantId, '--fulfillment-service', serviceId)).out).toEqual({ ok: true });

    const user = await cliWithInput('correct horse battery\n', 'user', 'create', '--store', merchantId, '--email', 'Owner@Example.com');
    expect(user.code).toBe(0);
    expect(JSON.parse(user.out)).toEqual({ id: expect.stringMatching(/^usr_/), email: 'owner@example.com' });
    const tooShort = await cliWithInput('short\n', 'user', 'create', '--store', merchantId, '--email', 'other@example.com');
    expect(tooShort.code).toBe(1);
    expect(tooShort.err).toContain('at least 10 characters');

    const client = await cli('api-client', 'create', '--store', merchantId, '--name', 'app', '--scopes', 'customers_read,orders_write');
    expect(client.out).toEqual({ id: expect.stringMatching(/^apc_/), secret: expect.any(String) });
    const clientId = (client.out as { id: string }).id;
    expect((await cli('api-client', 'revoke', '--id', clientId)).out).toEqual({ ok: true });

    const seed = await cli('seed');
    expect(seed.out).toEqual({
      seeded: true,
      storeId: expect.stringMatching(/^str_/),
      secret: expect.any(String),
      login: { email: 'demo@example.com', password: expect.any(String) },
    });
    // Seeding again changes nothing: same demo store, no second copy.
    const again = await cli('seed');
    expect(again.out).toEqual({ seeded: false, storeId: (seed.out as { storeId: string }).storeId });
  });

  it('prints its help as plain text on stdout with exit code 0', async () => {
    for (const flag of ['--help', 'help', '-h']) {
      const { stdout, stderr } = await run(process.execPath, [...CLI, flag], { env: { ...process.env, DATABASE_URL: databaseUrl } });
      expect(stdout).toMatch(/^usage: npm run -s cli -- <command>\n/);
      expect(stdout).toContain('\n  api-client create --store str_A --name NAME --scopes a,b,c\n');
      expect(stdout).toContain('\n  db export --to FILE ');
      expect(stderr).toBe('');
    }
  });

  it('refuses bad input with a JSON error on stderr and exit code 1', async () => {
    const badScope = await cli('api-client', 'create', '--store', 'str_x', '--name', 'a', '--scopes', 'nope');
    expect(badScope.code).toBe(1);
    expect(JSON.parse(badScope.err.trim().split('\n').at(-1)!)).toEqual({ error: expect.stringContaining('unknown scope nope') });
    const unknownStore = await cli('api-client', 'create', '--store', 'str_missing', '--name', 'a', '--scopes', 'orders_read');
    expect(unknownStore.code).toBe(1);
    expect(unknownStore.err).toContain('store str_missing not found');
    const usage = await cli('store', 'explode');
    expect(usage.code).toBe(1);
    expect(usage.err).toMatch(/^error: unknown command "store explode"\n\nusage: /);
    expect(usage.out).toBe('');
    const missing = await cli('store', 'create');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^error: --name is required\n\nusage: /);
  });

  it('db import and db export say what is wrong in one sentence (test/db/transfer.test.ts moves data through them)', async () => {
    const absent = path.join(os.tmpdir(), `no-such-dump-${crypto.randomBytes(3).toString('hex')}.sql`);
    const load = await cli('db', 'import', '--from', absent);
    expect(load.code).toBe(1);
    expect(JSON.parse(load.err)).toEqual({
      error: databaseUrl.startsWith('pglite:')
        ? `db import loads into PostgreSQL: DATABASE_URL must be a postgresql:// URL, got "${databaseUrl}"`
        : `cannot read ${absent}: no such file`,
    });
    const existing = await cli('db', 'export', '--to', path.resolve('package.json'));
    expect(existing.code).toBe(1);
    expect(JSON.parse(existing.err)).toEqual({ error: `${path.resolve('package.json')} already exists; db export does not overwrite a file` });
    const usage = await cli('db', 'copy');
    expect(usage.code).toBe(1);
    expect(usage.err).toMatch(/^error: unknown command "db copy"\n\nusage: /);
    expect((await cli('db', 'import', '--to', absent)).err).toMatch(/^error: Unknown option '--to'.*\n\nusage: /);
  });
});

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('cli next to a running server on the embedded database', { timeout: 240_000 }, () => {
  it('works through the server socket, and the server keeps serving', async () => {
    const child = spawn(TSX, ['src/main.ts'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'warn', SEED_WHEN_EMPTY: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          const match = /listening on (http:\/\/\S+)/.exec(out);
          if (match) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
      });
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      const store = await cli('store', 'create', '--name', 'While running');
      expect(store.code).toBe(0);
      const client = await cli('api-client', 'create', '--store', (store.out as { id: string }).id, '--name', 'a', '--scopes', 'orders_read');
      const secret = (client.out as { secret: string }).secret;
      const response = await fetch(`${base}/v3/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ store { id name } }' }),
      });
      expect(await response.json()).toEqual({ data: { store: { id: (store.out as { id: string }).id, name: 'While running' } } });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});

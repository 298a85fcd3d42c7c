// Moving from the embedded database to PostgreSQL (`cli db export`, `cli db import`): an
// embedded directory filled through the domain code is exported, imported into a new
// PostgreSQL database and compared table by table; then the moved service is used (API
// secret, dashboard password, sequences, the webhook queues). Bad dumps and non-empty
// targets are refused without leaving rows behind. Needs a PostgreSQL server to import
// into, so it runs in the PostgreSQL pass of the suite only (TEST_DATABASE_URL set).
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import type { SqlChannel } from '../../src/db/sqlChannel.ts';
import { applyMigrations, readMigrations } from '../../src/db/migrate.ts';
import { exportDump, importDump, type TransferSummary } from '../../src/db/transfer.ts';
import { seedDemo, DEMO_USER_EMAIL } from '../../src/domain/demo.ts';
import { setReturnTags } from '../../src/domain/returns/operations.ts';
import { upsertReturnTag } from '../../src/domain/returnTags.ts';
import { createWebhookSubscription } from '../../src/domain/webhooks.ts';
import { checkLogin } from '../../src/auth/merchantUsers.ts';
import { createMerchantUser } from '../../src/domain/merchantUsers.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { createEmptyPostgresDatabase } from '../support/db.ts';
import { createTestOrder, insertTestReturn, type TestOrder } from '../support/returnFixtures.ts';
import { call, createTestStore, startTestServer, type TestStore } from '../support/server.ts';
import { emit, orderViolations, startReceiver, startTestDispatcher, waitFor, type Receiver } from '../webhooks/support.ts';
import { LOOPBACK_ALLOWED } from '../support/contexts.ts';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const PASSWORD = 'correct horse battery staple';
// Every character COPY's text format escapes, and text that looks like its markers.
const AWKWARD_NAME = 'Tab\there, new\nline, back\\slash, \\N, \\., CR\r, ünïcödé 🚀';

let dir: string;
let sourceUrl: string;
let dumpFile: string;
let exported: TransferSummary;
let demo: { storeId: string; secret: string; login: { email: string; password: string } };
let shop: TestStore;
let order: TestOrder;
let receiver: Receiver;
/** Requests the receiver had when the source's dispatcher stopped. */
let deliveredFromSource: number;
let phase: 'source' | 'target' = 'source';
const cleanups: (() => Promise<unknown>)[] = [];

/**
 * Every moved table's rows as JSON, in a fixed order (PostgreSQL writes the JSON on both kinds of
 * database); each database keeps its own change counters, and counts its own overview rollups
 * and facts (overviewCounts compares those).
 */
async function tableRows(sql: SqlChannel): Promise<Record<string, string>> {
  const tables = await sql.query<{ name: string }>(
    `SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
     WHERE c.relkind = 'r' AND c.relname NOT IN ('_prisma_migrations', 'StoreChangeCounter', 'ReturnsOverviewRollup', 'ReturnOverviewFact') ORDER BY 1`,
  );
  const rows: Record<string, string> = {};
  for (const { name } of tables) {
    const [result] = await sql.query<{ rows: string }>(`SELECT coalesce(json_agg(t ORDER BY t::text COLLATE "C"), '[]')::text AS rows FROM "${name}" t`);
    rows[name] = result.rows;
  }
  return rows;
}

/** What the overview's rollups sum to, per store, figure, day and key, and each return's fact: the same after a move, however the rows are split. */
async function overviewCounts(sql: SqlChannel): Promise<string> {
  const [result] = await sql.query<{ counts: string }>(
    `SELECT json_build_array(
       (SELECT coalesce(json_agg(s ORDER BY s::text COLLATE "C"), '[]') FROM (
          SELECT "storeId", "figure", "day", "key", "detail", sum("returns") AS "returns", sum("units") AS "units", sum("amount") AS "amount", sum("amount2") AS "amount2"
          FROM "ReturnsOverviewRollup" GROUP BY 1, 2, 3, 4, 5
          HAVING sum("returns") <> 0 OR sum("units") <> 0 OR sum("amount") <> 0 OR sum("amount2") <> 0) AS s),
       (SELECT coalesce(json_agg(f ORDER BY f::text COLLATE "C"), '[]') FROM "ReturnOverviewFact" f))::text AS counts`,
  );
  return result.counts;
}

const rowCount = (rows: Record<string, string>) => Object.values(rows).reduce((sum, json) => sum + (JSON.parse(json) as unknown[]).length, 0);

async function withDatabase<T>(url: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(url, { poolSize: 2 });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function emptyDatabase(label: string): Promise<string> {
  const database = await createEmptyPostgresDatabase(label);
  cleanups.push(database.drop);
  return database.url;
}

function startDispatcher(db: Database): WebhookDispatcher {
  return startTestDispatcher(db, { timeoutMs: 30_000 });
}

const received = (subjectId: string, from = 0) =>
  receiver.requests.slice(from).filter((r) => r.body.subjectId === subjectId).map((r) => r.body.data.n);

async function cli(databaseUrl: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(TSX, ['src/cli.ts', ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('moving from the embedded database to PostgreSQL', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'transfer-test-'));
    sourceUrl = `pglite:${path.join(dir, 'source')}`;
    dumpFile = path.join(dir, 'dump.sql');
    // The source's dispatcher delivers events 1 and 2 of cus_a and is stopped while 3 is in flight.
    receiver = await startReceiver((request) =>
      phase === 'source' && request.body.subjectId === 'cus_a' && request.body.data.n === 3 ? { delayMs: 20_000 } : { status: 200 },
    );
    await withDatabase(sourceUrl, async (source) => {
      await applyMigrations(source);
      const seeded = await seedDemo(source.prisma);
      if (!seeded.seeded) throw new Error('the new directory was seeded before');
      demo = seeded;
      shop = await createTestStore(source, { name: AWKWARD_NAME });
      await createMerchantUser(source.prisma, { storeId: shop.storeId, email: 'owner@example.com', password: PASSWORD });
      order = await createTestOrder(source, shop.storeId, { lines: [{}, {}, {}] });
      const first = await insertTestReturn(source, shop.storeId, order, { items: [{ lineIndex: 0 }] });
      await insertTestReturn(source, shop.storeId, order, { items: [{ lineIndex: 1 }] });
      await upsertReturnTag(source.prisma, shop.storeId, { name: 'fragile', pillTheme: 'DANGER' });
      await upsertReturnTag(source.prisma, shop.storeId, { name: 'vip\tcustomer', pillTheme: 'PRIMARY' });
      await setReturnTags(source.prisma, shop.storeId, { id: first.id }, ['fragile', 'vip\tcustomer']);

      await createWebhookSubscription(source.prisma, shop.storeId, { url: `${receiver.url}/hooks`, topics: ['customer.updated'] }, LOOPBACK_ALLOWED);
      for (let n = 1; n <= 5; n++) await emit(source, shop.storeId, 'customer.updated', 'cus_a', { n });
      const dispatcher = startDispatcher(source);
      await waitFor(() => received('cus_a').includes(3), 'event 3 of cus_a to be in flight');
      await dispatcher.stop(50);
      deliveredFromSource = receiver.requests.length;
      // Never seen by a dispatcher: these move as deliveries not yet counted into a queue.
      for (let n = 1; n <= 3; n++) await emit(source, shop.storeId, 'customer.updated', 'cus_b', { n });
    });
  });

  afterAll(async () => {
    await receiver?.close();
    for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  let targetUrl: string;

  it('exports the directory and imports it into an empty PostgreSQL database: every table equal, row for row', async () => {
    expect(received('cus_a')).toEqual([1, 2, 3]);
    exported = await exportDump(sourceUrl, dumpFile);
    expect(exported).toEqual({ tables: expect.any(Number), rows: expect.any(Number), file: dumpFile });

    targetUrl = await emptyDatabase('move');
    expect(await importDump(targetUrl, dumpFile)).toEqual(exported);

    const sourceRows = await withDatabase(sourceUrl, (source) => tableRows(source.sql));
    await withDatabase(targetUrl, async (target) => {
      const targetRows = await tableRows(target.sql);
      expect(Object.keys(targetRows)).toEqual(Object.keys(sourceRows));
      for (const table of Object.keys(sourceRows)) expect(targetRows[table], table).toBe(sourceRows[table]);
      expect(await overviewCounts(target.sql), 'the overview rollups and facts').toBe(await withDatabase(sourceUrl, (source) => overviewCounts(source.sql)));
      expect(Object.keys(targetRows)).toHaveLength(exported.tables);
      expect(rowCount(targetRows)).toBe(exported.rows);

      // What the migrations made, unchanged by the load: every migration recorded, no foreign key left deferrable.
      const migrations = await target.sql.query<{ name: string }>('SELECT migration_name AS name FROM "_prisma_migrations" ORDER BY 1');
      expect(migrations.map((m) => m.name)).toEqual(readMigrations().map((m) => m.name));
      expect(await target.sql.query(`SELECT conname FROM pg_constraint WHERE contype = 'f' AND condeferrable`)).toEqual([]);
    });
    for (const table of ['Store', 'ApiClient', 'MerchantUser', 'Order', 'Return', 'ReturnTag', 'WebhookDelivery', 'WebhookQueue']) {
      expect(JSON.parse(sourceRows[table]), table).not.toEqual([]);
    }
    expect(JSON.parse(sourceRows.Store)).toContainEqual(expect.objectContaining({ id: shop.storeId, name: AWKWARD_NAME }));
  });

  it('keeps ids, and every sequence continues after the highest number moved', async () => {
    await withDatabase(targetUrl, async (target) => {
      expect(await target.prisma.apiClient.findUnique({ where: { id: shop.clientId }, select: { storeId: true } })).toEqual({ storeId: shop.storeId });
      const { _max: returns } = await target.prisma.return.aggregate({ _max: { number: true } });
      // The order's and its lines' ids, taken on the source, name the same rows here.
      expect((await insertTestReturn(target, shop.storeId, order, { items: [{ lineIndex: 2 }] })).number).toBe(returns.number! + 1);
      const { _max: tags } = await target.prisma.returnTag.aggregate({ _max: { numericId: true } });
      expect((await upsertReturnTag(target.prisma, shop.storeId, { name: 'new', pillTheme: 'NORMAL' })).numericId).toBe(tags.numericId! + 1);
    });
  });

  it('the API secrets and dashboard passwords made on the embedded database work on PostgreSQL', async () => {
    await withDatabase(targetUrl, async (target) => {
      const server = await startTestServer({}, {}, { db: target });
      try {
        const shopReturns = await call(server, 'GET', `/v2.2/stores/${shop.storeId}/returns`, { secret: shop.secret });
        expect(shopReturns.status).toBe(200);
        expect((shopReturns.body as { returns: { id: string }[] }).returns.map((r) => r.id).sort()).toEqual(
          (await target.prisma.return.findMany({ where: { storeId: shop.storeId }, select: { id: true } })).map((r) => r.id).sort(),
        );
        const demoReturns = await call(server, 'GET', `/v2.2/stores/${demo.storeId}/returns`, { secret: demo.secret });
        expect(demoReturns.status).toBe(200);
        expect((demoReturns.body as { returns: unknown[] }).returns.length).toBeGreaterThan(0);
        expect((await call(server, 'GET', `/v2.2/stores/${shop.storeId}/returns`, { secret: `${shop.secret}x` })).status).toBe(401);
      } finally {
        await server.close();
      }
      expect(await checkLogin(target.prisma, shop.storeId, 'owner@example.com', PASSWORD)).toEqual({ id: expect.stringMatching(/^usr_/) });
      expect(await checkLogin(target.prisma, demo.storeId, DEMO_USER_EMAIL, demo.login.password)).toEqual({ id: expect.stringMatching(/^usr_/) });
      expect(await checkLogin(target.prisma, shop.storeId, 'owner@example.com', `${PASSWORD}!`)).toBeNull();
    });
  });

  it('the webhook queues resume where the embedded database left them, in order', async () => {
    phase = 'target';
    await withDatabase(targetUrl, async (target) => {
      const { _max: before } = await target.prisma.webhookDelivery.aggregate({ _max: { sequence: true } });
      await emit(target, shop.storeId, 'customer.updated', 'cus_a', { n: 6 });
      const newest = await target.prisma.webhookDelivery.findFirstOrThrow({ orderBy: { sequence: 'desc' } });
      expect(newest.sequence).toBe(before.sequence! + 1n);

      const dispatcher = startDispatcher(target);
      try {
        await waitFor(() => received('cus_a', deliveredFromSource).includes(6) && received('cus_b', deliveredFromSource).includes(3), 'the moved queues to drain');
      } finally {
        await dispatcher.stop(1_000);
      }
      // Event 3 was in flight when the source stopped; it is the first delivered after the move.
      expect(received('cus_a', deliveredFromSource)).toEqual([3, 4, 5, 6]);
      expect(received('cus_b', deliveredFromSource)).toEqual([1, 2, 3]);
      expect(orderViolations(receiver.requests)).toEqual([]);
      expect(await target.prisma.webhookDelivery.count({ where: { status: { not: 'DELIVERED' }, subscription: { storeId: shop.storeId } } })).toBe(0);
      // Nothing waits anywhere; the demo's log keeps the deliveries it recorded as discarded.
      expect(await target.prisma.webhookDelivery.count({ where: { status: 'PENDING' } })).toBe(0);
    });
  });

  it('refuses a target that holds data, and changes nothing there', async () => {
    const before = await withDatabase(targetUrl, (target) => tableRows(target.sql));
    await expect(importDump(targetUrl, dumpFile)).rejects.toThrow(/the target database holds data \(rows in "ApiClient", .*\); db import fills only an empty database/);
    expect(await withDatabase(targetUrl, (target) => tableRows(target.sql))).toEqual(before);
  });

  it('a cut-short, corrupted or tampered dump loads nothing: the target stays empty', async () => {
    const url = await emptyDatabase('bad');
    const text = fs.readFileSync(dumpFile, 'utf8');
    const lines = text.split('\n');
    const bad = (name: string, content: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, content);
      return file;
    };
    const spliced = (at: number, remove: number, ...insert: string[]) => {
      const copy = [...lines];
      copy.splice(at, remove, ...insert);
      return copy;
    };
    const blockOf = (table: string) => lines.findIndex((line) => line.startsWith(`COPY "${table}" (`));
    const expectEmpty = async () => {
      const rows = await withDatabase(url, (db) => tableRows(db.sql));
      expect(Object.keys(rows)).toHaveLength(exported.tables);
      expect(rowCount(rows)).toBe(0);
      // Sequences too, though setval is not undone by a rollback.
      expect(await withDatabase(url, (db) => db.sql.query('SELECT sequencename FROM pg_sequences WHERE last_value IS NOT NULL'))).toEqual([]);
    };

    // The first attempt also migrates the new database; it stays migrated, and empty.
    await expect(importDump(url, bad('cut.sql', text.slice(0, Math.floor(text.length * 0.6))))).rejects.toThrow(/the file is cut short/);
    await expectEmpty();
    await expect(importDump(url, bad('no-end.sql', lines.slice(0, lines.findIndex((l) => l.startsWith('-- end of dump'))).join('\n')))).rejects.toThrow(
      /has no end of dump and COMMIT: the file is cut short/,
    );
    await expectEmpty();

    const deliveries = blockOf('WebhookDelivery');
    const columns = lines[deliveries].slice(lines[deliveries].indexOf('(') + 1, lines[deliveries].lastIndexOf(')')).split(', ');
    const fields = lines[deliveries + 1].split('\t');
    fields[columns.indexOf('"attemptCount"')] = 'many';
    const corrupted = spliced(deliveries + 1, 1, fields.join('\t'));
    await expect(importDump(url, bad('corrupt.sql', corrupted.join('\n')))).rejects.toThrow(
      new RegExp(`line ${deliveries + 2} \\(rows of "WebhookDelivery"\\): invalid input syntax for type integer: "many"`),
    );
    await expectEmpty();

    // Refused far into a long COPY, while rows are still being sent.
    const throttles = blockOf('ThrottleWindow');
    const many = Array.from({ length: 20_000 }, (_, i) => `key ${i}\t2026-01-01 00:00:00\t${i === 15_000 ? 'x' : 1}`);
    await expect(importDump(url, bad('late.sql', spliced(throttles + 1, 0, ...many).join('\n')))).rejects.toThrow(
      new RegExp(`line ${throttles + 2 + 15_000} \\(rows of "ThrottleWindow"\\): invalid input syntax for type integer: "x"`),
    );
    await expectEmpty();

    const attempts = blockOf('DeliveryAttempt');
    expect(lines[attempts + 1]).not.toBe('\\.');
    await expect(importDump(url, bad('short.sql', spliced(attempts + 1, 1).join('\n')))).rejects.toThrow(/the dump says "DeliveryAttempt" has \d+ rows, but \d+ were read/);
    await expectEmpty();

    await expect(importDump(url, bad('tampered.sql', spliced(blockOf('Store'), 0, 'DROP TABLE "Store";').join('\n')))).rejects.toThrow(/unexpected "DROP TABLE "Store";"/);
    await expectEmpty();

    const future = lines.map((line) => line.replace(/^-- migration: \S+_webhook_queues /, '-- migration: 20991231000000_future '));
    await expect(importDump(url, bad('future.sql', future.join('\n')))).rejects.toThrow(
      /was made at other migrations than prisma\/migrations has \(not applied: \S+_webhook_queues; not in prisma\/migrations .*: 20991231000000_future\)/,
    );
    await expectEmpty();
  });

  it('refuses bad input with a sentence that says what is wrong', async () => {
    await expect(importDump(sourceUrl, dumpFile)).rejects.toThrow(`db import loads into PostgreSQL: DATABASE_URL must be a postgresql:// URL, got "${sourceUrl}"`);
    await expect(importDump(targetUrl, path.join(dir, 'missing.sql'))).rejects.toThrow(`cannot read ${path.join(dir, 'missing.sql')}: no such file`);
    await expect(importDump(targetUrl, path.resolve('package.json'))).rejects.toThrow(/is not a dump written by `cli db export`/);
    await expect(exportDump(sourceUrl, dumpFile)).rejects.toThrow(`${dumpFile} already exists; db export does not overwrite a file`);
    await expect(exportDump(`pglite:${path.join(dir, 'nowhere')}`, path.join(dir, 'x.sql'))).rejects.toThrow(/there is no embedded database in /);
    expect(fs.existsSync(path.join(dir, 'nowhere'))).toBe(false);
    await expect(exportDump('pglite:memory:', path.join(dir, 'x.sql'))).rejects.toThrow(/an in-memory database has nothing to export/);
  });

  it('refuses a dump during which the database was written to', async () => {
    const file = path.join(dir, 'busy.sql');
    const writer = new pg.Client({ connectionString: targetUrl });
    await writer.connect();
    let exporting = true;
    // Each call takes a transaction id, as every writing transaction does.
    const writing = (async () => {
      while (exporting) await writer.query('SELECT pg_current_xact_id()');
    })();
    try {
      await expect(exportDump(targetUrl, file)).rejects.toThrow('the database was written to while it was exported (by the server that owns it?); stop the server and export again');
    } finally {
      exporting = false;
      await writing;
      await writer.end();
    }
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
  });

  it('refuses to export a directory whose migrations differ from prisma/migrations', async () => {
    const url = `pglite:${path.join(dir, 'mismatch')}`;
    const file = path.join(dir, 'mismatch.sql');
    const last = readMigrations().at(-1)!.name;
    await withDatabase(url, async (db) => {
      await applyMigrations(db);
      await db.sql.query(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count) VALUES ('x', 'x', '20991231000000_future', now(), 1)`);
    });
    await expect(exportDump(url, file)).rejects.toThrow(/the source database's migrations differ from prisma\/migrations \(not in prisma\/migrations .*: 20991231000000_future\)/);
    await withDatabase(url, (db) => db.sql.query(`DELETE FROM "_prisma_migrations" WHERE migration_name IN ('20991231000000_future', $1)`, [last]));
    await expect(exportDump(url, file)).rejects.toThrow(new RegExp(`\\(not applied: ${last}\\); .*after \`cli migrate\` when migrations are only missing`));
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
  });

  it('through the CLI: exports next to a running server (through its socket) and imports into a new database', async () => {
    const server = spawn(TSX, ['src/main.ts'], {
      env: { ...process.env, DATABASE_URL: sourceUrl, PORT: '0', LOG_LEVEL: 'warn', SEED_WHEN_EMPTY: 'false', WEBHOOK_DISPATCHER: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const file = path.join(dir, 'cli.sql');
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (chunk) => {
          out += chunk;
          if (/listening on http:\/\/\S+/.test(out)) resolve();
        });
        server.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
      });
      expect(fs.existsSync(`${sourceUrl.slice('pglite:'.length)}.socket`)).toBe(true);
      const exportRun = await cli(sourceUrl, 'db', 'export', '--to', file);
      expect(exportRun).toEqual({ code: 0, out: `${JSON.stringify({ ...exported, file })}\n`, err: '' });
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }

    const url = await emptyDatabase('cli');
    const importRun = await cli(url, 'db', 'import', '--from', file);
    expect(importRun).toEqual({ code: 0, out: `${JSON.stringify({ ...exported, file })}\n`, err: '' });
    const again = await cli(url, 'db', 'import', '--from', file);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.err)).toEqual({ error: expect.stringMatching(/^the target database holds data/) });
    const wrongKind = await cli(sourceUrl, 'db', 'import', '--from', file);
    expect(wrongKind.code).toBe(1);
    expect(JSON.parse(wrongKind.err)).toEqual({ error: `db import loads into PostgreSQL: DATABASE_URL must be a postgresql:// URL, got "${sourceUrl}"` });
    const usage = await cli(url, 'db', 'export');
    expect(usage.code).toBe(1);
    expect(usage.err).toMatch(/^error: --to is required\n\nusage: /);
  });
});

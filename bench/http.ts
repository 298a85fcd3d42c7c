// HTTP as clients poll it (issue 35): what the HTTP layer saves or costs, measured from
// outside (bench/load.ts: autocannon in a process of its own, CONCURRENCY connections,
// interleaved rounds, so every figure of a table comes from the same run), on an in-memory
// PGlite and on a scratch PostgreSQL database (dropped after). The service runs in this
// process. Each case of CASES is one table:
//   conditional poll  the REST v2.2 returns page (20 returns) asked whole, and asked again
//                     unchanged with If-None-Match (a 304 after one indexed read); the poll
//                     must reach POLL_TARGET times the page's rate
//   change counters   the writes the store change counters weigh on (customer upsert, order
//                     create), against a database with the counters' triggers and one whose
//                     triggers were dropped, seeded alike
//   compression       the same page uncompressed, gzip and br (src/compression.ts): bytes per
//                     page, requests/s, and the server's CPU per page (process.cpuUsage of this
//                     process; on PostgreSQL the database's CPU is elsewhere), so the CPU that
//                     compressing costs per page; then the page compressed alone at each brotli
//                     quality and gzip level, the measurement BROTLI_QUALITY was chosen by
// BENCH_PROFILE=page,poll writes a CPU profile of this process (the server) while those
// variants are under load (bench/profiles/), with a summary.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { SCOPES } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { foldStoreChanges } from '../src/db/storeChanges.ts';
import { seedOrdersWithReturns } from './returnsSeed.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createApp, type App } from '../src/process/server.ts';
import { BROTLI_QUALITY } from '../src/http/compression.ts';
import { measureLoad, type LoadOptions, type Measured, type Variant } from './load.ts';
import { POSTGRES_ADMIN_URL, scratchDatabase } from './scratchDatabase.ts';

const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 6);
const ROUNDS = 3;
const CONCURRENCY = 16;
const WARMUP_SECONDS = 1;
const PAGE = 20;
const ORDERS = 20;
const EMAILS = 50;
const POLL_TARGET = 5;
const PROFILED = (process.env.BENCH_PROFILE ?? '').split(',').filter(Boolean);
/** BENCH_HTTP_CASES="conditional poll,change counters" runs only those cases. */
const ONLY = (process.env.BENCH_HTTP_CASES ?? '').split(',').filter(Boolean);
const PROFILE_DIR = fileURLToPath(new URL('./profiles', import.meta.url));
// Connections of one variant sit idle while the others run; a server closing them meanwhile races the client's reuse.
const KEEP_ALIVE_MS = 120_000;

interface Served {
  db: Database;
  app: App;
  base: string;
  storeId: string;
  headers: Record<string, string>;
}

/** A store with an API client, two returns on each of ORDERS orders of three lines. */
async function seed(db: Database): Promise<{ storeId: string; secret: string }> {
  const { id: storeId } = await createStore(db.prisma, { name: 'Bench store' });
  const { secret } = await createApiClient(db.prisma, { storeId, name: 'bench', scopes: SCOPES });
  await seedOrdersWithReturns(db, storeId, ORDERS, 'seed');
  return { storeId, secret };
}

/** The service on `db`, migrated and seeded. */
async function serve(db: Database, label: string): Promise<Served> {
  const started = performance.now();
  await applyMigrations(db);
  const { storeId, secret } = await seed(db);
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), rateLimits: { rest: 1_000_000, compat: 1_000_000 } };
  const app = createApp({ db, config, logger: createLogger('silent') });
  app.server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`${label}: migrated and seeded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  // Named, so fetch sends what the load generator sends: a validator is made for one media type and coding. Uncompressed, the page is cheapest.
  const headers = { authorization: `Bearer ${secret}`, accept: 'application/json', 'accept-encoding': 'identity' };
  return { db, app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, storeId, headers };
}

/** Drops every trigger of the store change counters: the database as it was before them. */
async function dropChangeCounters(db: Database): Promise<void> {
  await db.sql.exec(`DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT tg.tgname, tg.tgrelid::regclass AS rel FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid WHERE p.proname = 'store_changes_count' LOOP
    EXECUTE format('DROP TRIGGER %I ON %s', t.tgname, t.rel);
  END LOOP;
END $$`);
}

function printTable(title: string, rows: Measured[], ratios: [string, string][]) {
  const line = (cells: string[]) => `  ${cells[0].padEnd(16)}${cells.slice(1).map((c) => c.padStart(10)).join('')}`;
  process.stdout.write(`${title}\n${line(['variant', 'requests', 'req/s', 'p50 ms', 'p99 ms'])}\n`);
  for (const r of rows) process.stdout.write(`${line([r.name, String(r.requests), r.rps.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1)])}\n`);
  const by = Object.fromEntries(rows.map((r) => [r.name, r]));
  process.stdout.write(`  throughput ratios: ${ratios.map(([a, b]) => `${a}/${b} ${(by[a].rps / by[b].rps).toFixed(2)}`).join(', ')}\n`);
}

const load = (label: string, part: string): LoadOptions => ({
  connections: CONCURRENCY,
  seconds: SECONDS,
  rounds: ROUNDS,
  warmupSeconds: WARMUP_SECONDS,
  profile: PROFILED.length > 0 ? { variants: PROFILED, dir: PROFILE_DIR, label: `http-${label.split(' ')[0]}-${part}`.toLowerCase() } : undefined,
});

interface Case {
  name: string;
  /** Runs the case against the database(s) it opens with `open`, printing its table. */
  run(label: string, open: (name: string) => Promise<Database>): Promise<void>;
}

const CASES: Case[] = [
  {
    name: 'conditional poll',
    async run(label, open) {
      const served = await serve(await open('poll'), `${label} (poll)`);
      try {
        // As the background work keeps them: the seed's writes folded into one row.
        await foldStoreChanges(served.db.sql);
        const url = `${served.base}/v2.2/stores/${served.storeId}/returns?page-size=${PAGE}`;
        const first = await fetch(url, { headers: served.headers });
        const page = await first.text();
        const tag = first.headers.get('etag');
        if (first.status !== 200 || !tag) throw new Error(`the returns page answered ${first.status} without a validator`);
        const again = await fetch(url, { headers: { ...served.headers, 'if-none-match': tag } });
        if (again.status !== 304) throw new Error(`the unchanged page polled with its validator answered ${again.status}`);
        const variants: Variant[] = [
          { name: 'page', request: { url, headers: served.headers } },
          { name: 'poll', request: { url, headers: { ...served.headers, 'if-none-match': tag }, status: 304 } },
        ];
        const rows = await measureLoad(variants, load(label, 'poll'));
        printTable(`${label}: REST returns page of ${PAGE} (${Buffer.byteLength(page)} bytes) whole, and polled unchanged with If-None-Match (304, no body)`, rows, [['poll', 'page']]);
        const ratio = rows[1].rps / rows[0].rps;
        process.stdout.write(`  poll/page ${ratio.toFixed(2)}: ${ratio >= POLL_TARGET ? 'meets' : 'FALLS SHORT of'} the ${POLL_TARGET}x target\n`);
      } finally {
        await served.app.shutdown(1_000);
        await served.db.close();
      }
    },
  },
  {
    name: 'change counters',
    async run(label, open) {
      const counted = await serve(await open('counted'), `${label} (with counters)`);
      const bare = await serve(await open('bare'), `${label} (triggers dropped)`);
      try {
        await dropChangeCounters(bare.db);
        const json = { 'content-type': 'application/json' };
        const upsert = (s: Served): Variant['request'] => ({
          url: `${s.base}/v2.2/stores/${s.storeId}/customers`,
          method: 'PUT',
          headers: { ...s.headers, ...json },
          bodies: Array.from({ length: EMAILS }, (_, i) => JSON.stringify({ email: `customer-${i}@example.com`, firstName: 'Ada', lastName: `Bench ${i}`, customFields: { tier: i % 2 ? 'gold' : 'silver', visits: i } })),
        });
        const order = (s: Served): Variant['request'] => ({
          url: `${s.base}/v2.2/stores/${s.storeId}/orders`,
          method: 'POST',
          headers: { ...s.headers, ...json },
          bodies: [
            JSON.stringify({
              orderId: 'bench-{{unique}}',
              createdAt: '2026-03-01T10:00:00Z',
              customer: { email: 'shopper@example.com', firstName: 'Bench', lastName: 'Shopper' },
              lineItems: [1, 2, 3].map((n) => ({ id: `line-${n}`, productId: `p-${n}`, title: `Product ${n}`, quantity: 2, price: 12.5 })),
              totalPrice: 75,
              currencyCode: 'USD',
            }),
          ],
        });
        for (const [name, request] of [['customer upsert', upsert], ['order create', order]] as const) {
          const rows = await measureLoad(
            [
              { name: 'counted', request: request(counted) },
              { name: 'bare', request: request(bare) },
            ],
            load(label, name.replace(' ', '-')),
          );
          printTable(`${label}: ${name} with the store change counters' triggers (counted) and without them (bare)`, rows, [['counted', 'bare']]);
        }
      } finally {
        await counted.app.shutdown(1_000);
        await bare.app.shutdown(1_000);
        await counted.db.close();
        await bare.db.close();
      }
    },
  },
  {
    name: 'compression',
    async run(label, open) {
      const served = await serve(await open('compression'), `${label} (compression)`);
      try {
        await benchCompression(label, served);
      } finally {
        await served.app.shutdown(1_000);
        await served.db.close();
      }
    },
  },
];

/** A GET's answer as it crossed the wire: node:http neither asks for a coding nor decodes one. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; coding?: string; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, coding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const CODINGS = ['identity', 'gzip', 'br'] as const;

/** Each setting compressing `page` alone, in this process: bytes, and microseconds per page (the median of several runs). */
function compressionSettings(page: Buffer): { setting: string; bytes: number; micros: number }[] {
  const brotli = (quality: number) => () =>
    zlib.brotliCompressSync(page, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: page.length },
    });
  const gzip = (level: number) => () => zlib.gzipSync(page, { level });
  const settings: [string, () => Buffer][] = [
    ...[1, 4, 5, 6, 9, 11].map((quality) => [`br q${quality}${quality === BROTLI_QUALITY ? ' (used)' : ''}`, brotli(quality)] as [string, () => Buffer]),
    ...[1, 6, 9].map((level) => [`gzip ${level}${level === 6 ? ' (used)' : ''}`, gzip(level)] as [string, () => Buffer]),
  ];
  return settings.map(([setting, compress]) => {
    const bytes = compress().length;
    const times: number[] = [];
    // Enough runs for a stable median, within about a second for the slowest setting.
    const runs = setting.startsWith('br q11') ? 15 : 200;
    for (let i = 0; i < runs; i++) {
      const started = process.hrtime.bigint();
      compress();
      times.push(Number(process.hrtime.bigint() - started) / 1000);
    }
    return { setting, bytes, micros: times.sort((a, b) => a - b)[Math.floor(times.length / 2)] };
  });
}

/** The returns page uncompressed, gzip and br under load, then each compression setting on that page alone. */
async function benchCompression(label: string, served: Served): Promise<void> {
  const url = `${served.base}/v2.2/stores/${served.storeId}/returns?page-size=${PAGE}`;
  const asked = (coding: string) => ({ ...served.headers, 'accept-encoding': coding });
  const plain = await rawGet(url, asked('identity'));
  const bytes: Record<string, number> = {};
  for (const coding of CODINGS) {
    const answer = await rawGet(url, asked(coding));
    const decoded = coding === 'br' ? zlib.brotliDecompressSync(answer.bytes) : coding === 'gzip' ? zlib.gunzipSync(answer.bytes) : answer.bytes;
    if (answer.status !== 200 || (answer.coding ?? 'identity') !== coding || !decoded.equals(plain.bytes)) {
      throw new Error(`the page asked in ${coding} answered ${answer.status} in ${answer.coding ?? 'identity'}, or decoded to other bytes`);
    }
    bytes[coding] = answer.bytes.length;
  }
  const rows = await measureLoad(
    CODINGS.map((coding) => ({ name: coding, request: { url, headers: asked(coding) } })),
    load(label, 'compression'),
  );
  const identity = rows[0];
  const line = (cells: string[]) => `  ${cells[0].padEnd(14)}${cells.slice(1).map((c) => c.padStart(12)).join('')}`;
  process.stdout.write(`${label}: REST returns page of ${PAGE}, by Accept-Encoding (${CONCURRENCY} connections, ${SECONDS} s each)
`);
  process.stdout.write(`${line(['coding', 'bytes/page', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/page', 'compressing'])}
`);
  for (const row of rows) {
    const extra = row === identity ? '' : `${((row.cpuMsPerRequest - identity.cpuMsPerRequest) * 1000).toFixed(0)} µs`;
    process.stdout.write(`${line([row.name, String(bytes[row.name]), row.rps.toFixed(0), row.p50.toFixed(1), row.p99.toFixed(1), row.cpuMsPerRequest.toFixed(3), extra])}
`);
  }
  process.stdout.write(`  throughput ratios: ${rows.slice(1).map((row) => `${row.name}/identity ${(row.rps / identity.rps).toFixed(2)}`).join(', ')}
`);
  process.stdout.write(`${label}: that page (${plain.bytes.length} bytes) compressed alone, one page at a time in this process
`);
  process.stdout.write(`${line(['setting', 'bytes', 'of page', 'µs/page'])}
`);
  for (const { setting, bytes: size, micros } of compressionSettings(plain.bytes)) {
    process.stdout.write(`${line([setting, String(size), `${((100 * size) / plain.bytes.length).toFixed(1)}%`, micros.toFixed(0)])}
`);
  }
}

export async function run(): Promise<void> {
  const started = performance.now();
  for (const benchCase of CASES) {
    if (ONLY.length > 0 && !ONLY.includes(benchCase.name)) continue;
    process.stdout.write(`\n-- ${benchCase.name}\n`);
    await benchCase.run('PGlite (in memory)', () => openDatabase('pglite:memory:'));
    const scratch: { drop(): Promise<void> }[] = [];
    try {
      await benchCase.run('PostgreSQL', async (name) => {
        const database = await scratchDatabase(`http_${name}`);
        scratch.push(database);
        return openDatabase(database.url, { poolSize: CONCURRENCY });
      });
    } catch (error) {
      if (scratch.length > 0) throw error;
      process.stdout.write(`PostgreSQL at ${POSTGRES_ADMIN_URL} unreachable (${(error as Error).message}); skipped\n`);
    } finally {
      for (const database of scratch) await database.drop();
    }
  }
  process.stdout.write(`http bench took ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

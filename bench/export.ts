// Exports at size (issue 43): a million orders exported as CSV (GET /v3/rest/exports/orders.csv)
// from the service in a child process (NODE_ENV=production) on PostgreSQL, read by a client in a
// process of its own (bench/exportWorker.mjs) that counts the body as it arrives. Printed: rows
// and bytes, time to the first byte and to the last, rows/s, and the service's resident memory
// (VmRSS, sampled every 50 ms) before, at its peak during the export (and in each tenth of it) and
// after: an export is written page by page as the client takes it, so the peak must not grow with
// the rows.
// Then the same as JSON Lines. (Not a broad search: each page of one is a search statement, held to
// the reads' search time limit, and a page past it ends the export part way, connection cut.)
// Data: the search bench's (bench/searchSeed.ts through bench/search.ts's seed: one store of
// BENCH_EXPORT_ORDERS orders (1000000), 3 lines each, their returns, customers and products, and a
// small second store seeded alike), on a scratch database dropped at the end, also on failure or
// Ctrl-C. The full seed took 35 minutes on a loaded 2-core machine (23 of them rebuilding the search
// documents); BENCH_EXPORT_ORDERS=200000 takes about a fifth of that.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SCOPES } from '../src/auth/scopes.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { exited, residentMb, startService, type Service } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';
import { runClientProcess } from './load.ts';
import { dropOnInterrupt, scratchDatabase } from './scratchDatabase.ts';
import { seed } from './search.ts';

const ORDERS = Number(process.env.BENCH_EXPORT_ORDERS ?? 1_000_000);
if (!Number.isSafeInteger(ORDERS) || ORDERS < 100) throw new Error(`BENCH_EXPORT_ORDERS must be an integer of at least 100, got ${process.env.BENCH_EXPORT_ORDERS}`);
const WORKER = fileURLToPath(new URL('./exportWorker.mjs', import.meta.url));
const RSS_SAMPLE_MS = 50;

const write = (line = '') => process.stdout.write(`${line}\n`);

interface Fetched {
  status: number;
  rows: number;
  bytes: number;
  firstByteMs: number;
  ms: number;
}

/** One export read by the client process while the service's memory is sampled. */
async function measure(service: Service, url: string, secret: string, label: string): Promise<void> {
  const pid = service.child.pid!;
  const before = residentMb(pid) ?? 0;
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(residentMb(pid) ?? 0), RSS_SAMPLE_MS);
  let fetched: Fetched;
  try {
    fetched = await runClientProcess<Fetched>(WORKER, { url, headers: { authorization: `Bearer ${secret}` } });
  } finally {
    clearInterval(sampler);
  }
  if (fetched.status !== 200) throw new Error(`${label}: HTTP ${fetched.status}`);
  const after = residentMb(pid) ?? 0;
  const peak = Math.max(before, ...samples);
  // The highest RSS in each tenth of the export: memory that grew with the rows read would climb tenth by tenth.
  const tenths = Array.from({ length: 10 }, (_, i) => Math.max(0, ...samples.slice(Math.floor((i * samples.length) / 10), Math.floor(((i + 1) * samples.length) / 10))));
  const seconds = fetched.ms / 1000;
  write(`  ${label}`);
  write(`    ${fetched.rows.toLocaleString('en')} rows, ${(fetched.bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s (first byte after ${fetched.firstByteMs.toFixed(0)} ms)`);
  write(`    ${Math.round(fetched.rows / seconds).toLocaleString('en')} rows/s, ${(fetched.bytes / 1e6 / seconds).toFixed(1)} MB/s`);
  write(`    service RSS: ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB during (+${(peak - before).toFixed(0)} MB), ${after.toFixed(0)} MB after`);
  write(`    highest RSS in each tenth of the export (MB): ${tenths.map((mb) => mb.toFixed(0)).join(' ')}`);
  write(`    load average after: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (${os.cpus().length} cores)`);
}

export async function run(): Promise<void> {
  const scratch = await scratchDatabase('export');
  let service: Service | undefined;
  const stopWatching = dropOnInterrupt(scratch, () => service);
  try {
    const db = await openDatabase(scratch.url, { poolSize: 2 });
    const stores: { storeId: string; secret: string }[] = [];
    try {
      await applyMigrations(db);
      for (const name of ['Export bench', 'Export bench, other store']) {
        const { id: storeId } = await createStore(db.prisma, { name });
        const { secret } = await createApiClient(db.prisma, { storeId, name: 'export bench', scopes: SCOPES });
        stores.push({ storeId, secret });
      }
    } finally {
      await db.close();
    }
    const [main, other] = stores;
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      const otherOrders = Math.max(200, Math.round(ORDERS / 50));
      await seed(client, [
        { store: main, tag: 'a', size: { orders: ORDERS, customers: Math.max(100, Math.round(ORDERS / 10)), products: Math.max(100, Math.round(ORDERS / 20)) }, label: 'store' },
        { store: other, tag: 'b', size: { orders: otherOrders, customers: Math.max(100, Math.round(otherOrders / 10)), products: 100 }, label: 'other store' },
      ]);
    } finally {
      await client.end();
    }

    service = await startService(scratch.url, {
      NODE_ENV: 'production',
      SEED_WHEN_EMPTY: 'false',
      MIGRATE_ON_START: 'false',
      LOG_LEVEL: 'warn',
      WEBHOOK_DISPATCHER: 'false',
    });
    const base = service.url;
    await waitFor(async () => (await fetch(`${base}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 120_000, 100);
    write(`service (source through tsx, NODE_ENV=production) at ${base}; the client reads each export in a process of its own`);
    // Warm: the first request of a kind compiles its code paths and builds the schema's caches; that is not the export's cost.
    for (const path of ['orders.csv?query=name:1001', 'orders.jsonl?query=name:1001']) {
      await runClientProcess<Fetched>(WORKER, { url: `${base}/v3/rest/exports/${path}`, headers: { authorization: `Bearer ${main.secret}` } });
    }
    await measure(service, `${base}/v3/rest/exports/orders.csv`, main.secret, `every order as CSV (${ORDERS.toLocaleString('en')} expected)`);
    await measure(service, `${base}/v3/rest/exports/orders.jsonl`, main.secret, 'every order as JSON Lines');
  } finally {
    stopWatching();
    if (service) {
      service.child.kill('SIGTERM');
      await exited(service.child);
    }
    await scratch.drop();
  }
}

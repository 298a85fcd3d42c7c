// Answers whose size the client decides, on PostgreSQL: the warehouse door's unpaginated
// return list and its ASN report over 100,000 returns (three line items each) created within
// one day. For each: time to the last byte, bytes, the service's resident memory before and at
// its peak (its own /proc/<pid>/status, sampled while the answer is read), and the latency of
// /readyz and of a small REST GET (page 1 of 20 returns) made every quarter second while the
// answer is being read, beside the same requests on the idle service. The service runs as a
// child process from source and is restarted before each answer, so each starts from the same
// memory; each answer is measured with Node's default heap and with the heap capped at 512 MB
// (V8 collects a long answer's garbage far earlier under a cap). Set BENCH_BIG_RETURNS to change
// the count.
import fs from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import { SCOPES } from '../src/auth/scopes.ts';
import { openDatabase } from '../src/db/client.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { insertBulkReturns } from '../test/support/bulkReturns.ts';
import { exited, residentMb, startService, type Service } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';

const RETURNS = Number(process.env.BENCH_BIG_RETURNS ?? 100_000);
const ITEMS = 3;
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const IDLE_PROBES = 20;
const SAMPLE_MS = 25;
/** Between two pairs of requests made while an answer is read: a few, not a load that would slow the answer itself. */
const PROBE_EVERY_MS = 250;
const DAY = 24 * 60 * 60 * 1000;
const HEAPS: [string, NodeJS.ProcessEnv][] = [
  ["Node's default heap", {}],
  ['heap capped: NODE_OPTIONS=--max-old-space-size=512', { NODE_OPTIONS: '--max-old-space-size=512' }],
];

interface Credentials {
  storeId: string;
  secret: string;
}

/** Milliseconds until the whole answer of a GET has arrived (its body read and dropped). */
async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - started;
}

/** A big GET read as it arrives, counting its bytes and keeping none. */
function download(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number; last: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
        let bytes = 0;
        let last = '';
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          last = chunk.subarray(-1).toString();
        });
        res.on('end', () => resolve({ ms: performance.now() - started, bytes, last }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function stats(values: number[]): string {
  if (values.length === 0) return 'none made';
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${values.length})`;
}

async function ready(service: Service): Promise<void> {
  await waitFor(async () => (await fetch(`${service.url}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 60_000, 50);
}

/** Path of a warehouse GET over the window [from, to). */
type Answer = (from: Date, to: Date) => string;

async function measure(
  databaseUrl: string,
  credentials: Credentials,
  name: string,
  answerPath: Answer,
  window: { from: Date; to: Date },
  heap: NodeJS.ProcessEnv,
): Promise<string[]> {
  const service = await startService(databaseUrl, { RATE_LIMIT_REST_PER_MINUTE: '1000000', RATE_LIMIT_COMPAT_PER_MINUTE: '1000000', LOG_LEVEL: 'warn', ...heap });
  try {
    await ready(service);
    const pid = service.child.pid!;
    const auth = { authorization: `Bearer ${credentials.secret}` };
    const smallGet = `${service.url}/v2.2/stores/${credentials.storeId}/returns?page-size=20`;
    // Warm: the code paths of every request below have run once.
    await timed(smallGet, auth);
    await timed(`${service.url}${answerPath(new Date(window.to.getTime() - 60_000), window.to)}`, auth);
    const idle = { readyz: [] as number[], small: [] as number[] };
    for (let i = 0; i < IDLE_PROBES; i++) {
      idle.readyz.push(await timed(`${service.url}/readyz`));
      idle.small.push(await timed(smallGet, auth));
    }
    const before = residentMb(pid)!;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentMb(pid) ?? peak);
    }, SAMPLE_MS);
    const meanwhile = { readyz: [] as number[], small: [] as number[] };
    const started = performance.now();
    let done = false;
    const answer = download(`${service.url}${answerPath(window.from, window.to)}`, auth).finally(() => {
      done = true;
    });
    // A /readyz and a small GET, one after the other, every PROBE_EVERY_MS for as long as the answer is being read.
    const probes = (async () => {
      const pause = () => new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
      for (await pause(); !done; await pause()) {
        meanwhile.readyz.push(await timed(`${service.url}/readyz`));
        if (done) break;
        meanwhile.small.push(await timed(smallGet, auth));
      }
    })();
    const result = await answer.catch((error: Error) => error).finally(() => clearInterval(sampler));
    await probes.catch(() => undefined);
    if (result instanceof Error) {
      // A service out of memory writes its last words and exits just after the connection drops.
      await Promise.race([exited(service.child), new Promise((resolve) => setTimeout(resolve, 2_000))]);
      const exit = service.child.exitCode ?? service.child.signalCode;
      const said = /FATAL ERROR[^\n]*|heap out of memory[^\n]*/i.exec(service.output())?.[0];
      return [`${name}: failed after ${((performance.now() - started) / 1000).toFixed(1)} s (${result.message}); service ${exit === null ? 'still running' : `exited (${exit})`}${said ? `: ${said}` : ''}`];
    }
    if (result.last !== ']') throw new Error(`${name}: the answer does not end a JSON array`);
    return [
      `${name}: ${(result.ms / 1000).toFixed(1)} s, ${(result.bytes / 1e6).toFixed(1)} MB; RSS ${before.toFixed(0)} MB -> peak ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB)`,
      `  meanwhile: /readyz ${stats(meanwhile.readyz)}; small REST GET ${stats(meanwhile.small)}`,
      `  idle, same service just before: /readyz ${stats(idle.readyz)}; small REST GET ${stats(idle.small)}`,
    ];
  } finally {
    service.child.kill('SIGTERM');
    await exited(service.child);
  }
}

export async function run(): Promise<void> {
  if (!fs.existsSync('/proc/self/status')) {
    process.stdout.write('no /proc here; not measured\n');
    return;
  }
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    process.stdout.write(`PostgreSQL at ${POSTGRES_ADMIN_URL} unreachable (${(error as Error).message}); not measured\n`);
    return;
  }
  const name = `bench_big_${process.pid}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  try {
    // The first start migrates the scratch database.
    const migrating = await startService(databaseUrl, { LOG_LEVEL: 'warn' });
    await ready(migrating);
    migrating.child.kill('SIGTERM');
    await exited(migrating.child);

    const to = new Date();
    const from = new Date(to.getTime() - DAY);
    const db = await openDatabase(databaseUrl, { poolSize: 1 });
    let credentials: Credentials;
    const started = performance.now();
    try {
      const { id: storeId } = await createStore(db.prisma, { name: 'Big answers' });
      const { secret } = await createApiClient(db.prisma, { storeId, name: 'bench', scopes: SCOPES });
      credentials = { storeId, secret };
      await insertBulkReturns(db.sql, storeId, { count: RETURNS, items: ITEMS, from, stepMs: Math.floor(DAY / RETURNS), batch: 'big' });
      await db.sql.query('ANALYZE');
    } finally {
      await db.close();
    }
    process.stdout.write(
      `${RETURNS} returns, ${RETURNS * ITEMS} line items, created within one day on PostgreSQL (written in ${((performance.now() - started) / 1000).toFixed(0)} s); service from source, restarted for each answer\n`,
    );
    const windowOf = (a: Date, b: Date) => `from=${a.toISOString()}&to=${b.toISOString()}`;
    const answers: [string, Answer][] = [
      ['unpaginated list (GET /api/v1/warehouse/return/list)', (a, b) => `/api/v1/warehouse/return/list?${windowOf(a, b)}`],
      ['ASN report (GET /api/v1/warehouse/reporting/asn)', (a, b) => `/api/v1/warehouse/reporting/asn?${windowOf(a, b)}`],
    ];
    for (const [heapLabel, heap] of HEAPS) {
      process.stdout.write(`  ${heapLabel}:\n`);
      for (const [label, answerPath] of answers) {
        for (const line of await measure(databaseUrl, credentials, label, answerPath, { from, to }, heap)) process.stdout.write(`    ${line}\n`);
      }
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

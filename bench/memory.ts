// Resident memory of the real service in a child process, as `npm start` runs it (the
// build in dist/) beside the same code through the tsx loader (how it ran before it had a
// build, and how the tests run it), on the embedded PGlite default: after the first start (database created, demo data seeded), after a
// restart on that directory (what a running installation starts with), and after a load
// of REST upserts and return pages; read from /proc/<pid>/status (VmRSS, VmHWM = peak).
// Then the same service after start on a scratch PostgreSQL database, which loads no PGlite.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { exited, startService, type ServiceCode } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';

const REQUESTS = Number(process.env.BENCH_MEMORY_REQUESTS ?? 2000);
const CONCURRENCY = 16;
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** RSS of the service after start on a scratch PostgreSQL database (dropped after), or why not. */
async function postgresStartRss(code: ServiceCode): Promise<string> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    return `PostgreSQL at ${POSTGRES_ADMIN_URL} unreachable (${(error as Error).message})`;
  }
  const name = `bench_memory_${process.pid}_${code}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const service = await startService(url.toString(), { SEED_WHEN_EMPTY: 'false' }, code);
  try {
    await waitFor(async () => (await fetch(`${service.url}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 60_000, 50);
    return `RSS ${memoryOf(service.child.pid!).rssMb.toFixed(0)} MB`;
  } finally {
    service.child.kill('SIGTERM');
    await exited(service.child);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

async function measure(code: ServiceCode): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'));
  const env = { SEED_WHEN_EMPTY: 'true', RATE_LIMIT_REST_PER_MINUTE: '1000000' };
  const ready = async (url: string) => waitFor(async () => (await fetch(`${url}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 60_000, 50);
  const first = await startService(`pglite:${dir}`, env, code);
  await ready(first.url);
  const atFirstStart = memoryOf(first.child.pid!);
  first.child.kill('SIGTERM');
  await exited(first.child);
  const service = await startService(`pglite:${dir}`, env, code);
  try {
    await ready(service.url);
    const pid = service.child.pid!;
    const atStart = memoryOf(pid);
    const credentials = JSON.parse(fs.readFileSync(`${dir}.demo-credentials.json`, 'utf8')) as { storeId: string; secret: string };
    const headers = { authorization: `Bearer ${credentials.secret}`, 'content-type': 'application/json' };
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const i = next++;
        const response =
          i % 2 === 0
            ? await fetch(`${service.url}/v2.2/stores/${credentials.storeId}/customers`, {
                method: 'PUT',
                headers,
                body: JSON.stringify({ email: `load-${i % 100}@example.com`, firstName: 'Load', lastName: String(i), customFields: { visits: i } }),
              })
            : await fetch(`${service.url}/v2.2/stores/${credentials.storeId}/returns?page-size=20`, { headers });
        await response.text();
        if (response.status >= 300) throw new Error(`load request ${i} answered ${response.status}`);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const afterLoad = memoryOf(pid);
    process.stdout.write(`service from ${code === 'build' ? 'its build (npm start)' : 'source through tsx'}, on PGlite (${dir}): resident memory\n`);
    process.stdout.write(`  after the first start (database created, demo data seeded): RSS ${atFirstStart.rssMb.toFixed(0)} MB\n`);
    process.stdout.write(`  after a restart on that database (ready): RSS ${atStart.rssMb.toFixed(0)} MB\n`);
    process.stdout.write(
      `  after ${REQUESTS} REST requests (${CONCURRENCY} in flight, ${(REQUESTS / seconds).toFixed(0)} req/s): RSS ${afterLoad.rssMb.toFixed(0)} MB, peak ${afterLoad.peakMb.toFixed(0)} MB\n`,
    );
  } finally {
    service.child.kill('SIGTERM');
    await exited(service.child);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}.demo-credentials.json`, { force: true });
  }
  process.stdout.write(`  on PostgreSQL, after start (migrated, no demo data): ${await postgresStartRss(code)}\n`);
}

export async function run(): Promise<void> {
  if (!fs.existsSync('/proc/self/status')) {
    process.stdout.write('no /proc here; memory not measured\n');
    return;
  }
  await measure('build');
  await measure('source');
}

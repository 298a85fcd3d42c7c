// A bulk action on returns outlives the service process acting on it: started through /v3/graphql
// with an Idempotency-Key (the request only records it), the service (src/main.ts in a child
// process) is killed with SIGKILL part way through; started again on the same database, it
// resumes the action, which ends with every return acted on exactly once (one note each).
// On PostgreSQL when TEST_DATABASE_URL is set, else on a PGlite directory that the test and the
// two services open in turn (one process may own it at a time).
import type { ChildProcess } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createRestartableDatabase } from '../support/db.ts';
import { createTestStore } from '../support/server.ts';
import { exited, startService } from '../support/service.ts';

const RETURNS = 200;
const KILL_AFTER = 10;
const NOTE = 'Counted at the dock';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function service(url: string): Promise<{ child: ChildProcess; url: string }> {
  // A short lease: the restarted service resumes the killed one's action two seconds after its last step.
  const started = await startService(url, { WEBHOOK_DISPATCHER: 'false', RETURN_BULK_ACTION_LEASE_MS: '2000' });
  cleanups.push(async () => {
    if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
  });
  return started;
}

async function v3(base: string, secret: string, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/v3/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: Record<string, unknown>; errors?: { message: string }[] };
}

const PROGRESS = 'query($key: String!) { returnBulkAction(key: $key) { state total doneCount refusedCount } }';
type Progress = { state: string; total: number; doneCount: number; refusedCount: number };

async function progress(base: string, secret: string): Promise<Progress> {
  const res = await v3(base, secret, PROGRESS, { key: 'restart' });
  expect(res.errors).toBeUndefined();
  return res.data!.returnBulkAction as Progress;
}

it('resumes an action after the service is killed part way, and acts on every return exactly once', async () => {
  const db = await createRestartableDatabase('bulk-restart');
  cleanups.push(() => db.close());
  const store = await db.use(async (conn) => {
    const made = await createTestStore(conn);
    await insertBulkReturns(conn.sql, made.storeId, { count: RETURNS, items: 1, from: new Date('2026-09-01T00:00:00Z'), stepMs: 1000, batch: 'restart' });
    return made;
  });

  let running = await service(db.url);
  const started = await v3(
    running.url,
    store.secret,
    'mutation($key: String!, $note: String) { returnsBulkAction(key: $key, action: NOTE, matching: {}, argument: $note) { state total doneCount } }',
    { key: 'restart', note: NOTE },
    { 'idempotency-key': 'bulk-restart-1' },
  );
  expect(started.errors).toBeUndefined();
  // Recorded with the request's stored answer; nothing was acted on inside it.
  expect(started.data!.returnsBulkAction).toEqual({ state: 'RUNNING', total: RETURNS, doneCount: 0 });

  await expect.poll(async () => (await progress(running.url, store.secret)).doneCount, { timeout: 120_000, interval: 50 }).toBeGreaterThanOrEqual(KILL_AFTER);
  running.child.kill('SIGKILL');
  await exited(running.child);
  expect(running.child.signalCode).toBe('SIGKILL');

  running = await service(db.url);
  const atRestart = await progress(running.url, store.secret);
  expect(atRestart.doneCount).toBeLessThan(RETURNS);
  await expect.poll(async () => (await progress(running.url, store.secret)).state, { timeout: 240_000, interval: 500 }).toBe('DONE');
  expect(await progress(running.url, store.secret)).toEqual({ state: 'DONE', total: RETURNS, doneCount: RETURNS, refusedCount: 0 });
  running.child.kill('SIGTERM');
  await exited(running.child);

  await db.use(async (conn) => {
    const notes = await conn.prisma.returnNote.groupBy({ by: ['returnId'], where: { return: { storeId: store.storeId } }, _count: { _all: true } });
    expect(notes).toHaveLength(RETURNS);
    expect(notes.filter((row) => row._count._all !== 1)).toEqual([]);
    const action = await conn.prisma.returnBulkAction.findFirstOrThrow({ where: { storeId: store.storeId, key: 'restart' } });
    const results = action.results as { id: string }[];
    expect(new Set(results.map((result) => result.id)).size).toBe(RETURNS);
    expect(results).toHaveLength(RETURNS);
  });
}, 420_000);

// Bulk actions on returns below the doors: the caller is answered while a large action still
// runs, reads of its progress are answered meanwhile, and the action ends with every return acted
// on; recorded inside a request's transaction it acts on nothing there; two instances share the
// work of one action, and one that stops is resumed by another, each return acted on once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { inRequestTransaction } from '../../src/db/requestTransaction.ts';
import { findReturnBulkAction, ReturnBulkActionWorker, startReturnBulkAction } from '../../src/domain/returnBulkActions.ts';
import { createStore } from '../../src/domain/stores.ts';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;
let worker: ReturnBulkActionWorker;
beforeAll(async () => {
  db = await createTestDatabase();
  worker = new ReturnBulkActionWorker({ db: db.prisma, instanceId: 'test-instance', leaseMs: 30_000, pollIntervalMs: 200 });
  worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await db?.close();
});

/** Each return of the store changed by the action exactly once: one status change per return. */
async function changesPerReturn(storeId: string): Promise<number[]> {
  const rows = await db.prisma.returnStatusChange.groupBy({ by: ['returnId'], where: { return: { storeId } }, _count: { _all: true } });
  return rows.map((row) => row._count._all);
}

describe('a large bulk action', () => {
  it('answers while it runs, its progress can be read meanwhile, and it acts on every return once', async () => {
    const { id: storeId } = await createStore(db.prisma, { name: 'Bulk store' });
    await insertBulkReturns(db.sql, storeId, { count: 120, items: 1, from: new Date('2026-09-01T00:00:00Z'), stepMs: 1000, batch: 'run' });
    const started = await startReturnBulkAction(db.prisma, db.reads, storeId, { key: 'k1', action: 'flag', matching: {} }, { waitMs: 100 });
    expect(started.state).toBe('running');
    expect(started.results.length).toBeLessThan(120);
    const t0 = Date.now();
    const read = await findReturnBulkAction(db.prisma, storeId, 'k1');
    const readMs = Date.now() - t0;
    expect(read!.state).toBe('running');
    expect(readMs).toBeLessThan(1000);
    await expect.poll(async () => (await findReturnBulkAction(db.prisma, storeId, 'k1'))!.state, { timeout: 240_000, interval: 500 }).toBe('done');
    expect(await db.prisma.return.count({ where: { storeId, status: 'flagged' } })).toBe(120);
    const again = await startReturnBulkAction(db.prisma, db.reads, storeId, { key: 'k1', action: 'flag', matching: {} });
    expect(again.results).toHaveLength(120);
    expect(await db.prisma.returnStatusChange.count({ where: { return: { storeId } } })).toBe(120);
  }, 280_000);
});

describe('where the work runs', () => {
  it('acts on nothing inside the transaction of the request that records it (an Idempotency-Key), and on every return after', async () => {
    const { id: storeId } = await createStore(db.prisma, { name: 'Idempotent bulk store' });
    await insertBulkReturns(db.sql, storeId, { count: 5, items: 1, from: new Date('2026-09-01T00:00:00Z'), stepMs: 1000, batch: 'tx' });
    const answered = await inRequestTransaction(
      db.prisma,
      async () => {
        const state = await startReturnBulkAction(db.prisma, db.reads, storeId, { key: 'in-tx', action: 'flag', matching: {} });
        // Still inside the request's transaction: nothing of the action has been done.
        expect(await db.prisma.return.count({ where: { storeId, status: 'flagged' } })).toBe(0);
        return state;
      },
      { timeoutMs: 30_000 },
    );
    expect(answered.state).toBe('running');
    expect(answered.results).toEqual([]);
    await expect.poll(async () => (await findReturnBulkAction(db.prisma, storeId, 'in-tx'))!.state, { timeout: 60_000, interval: 200 }).toBe('done');
    expect(await db.prisma.return.count({ where: { storeId, status: 'flagged' } })).toBe(5);
  }, 90_000);

  it('is resumed by another instance when the one acting on it stops, each return acted on once', async () => {
    const { id: storeId } = await createStore(db.prisma, { name: 'Resumed bulk store' });
    await insertBulkReturns(db.sql, storeId, { count: 40, items: 1, from: new Date('2026-09-01T00:00:00Z'), stepMs: 1000, batch: 'resume' });
    await worker.stop();
    const first = new ReturnBulkActionWorker({ db: db.prisma, instanceId: 'first', leaseMs: 1_000, pollIntervalMs: 100 });
    const second = new ReturnBulkActionWorker({ db: db.prisma, instanceId: 'second', leaseMs: 1_000, pollIntervalMs: 100 });
    try {
      first.start();
      await startReturnBulkAction(db.prisma, db.reads, storeId, { key: 'resume', action: 'note', argument: 'Checked at the dock', matching: {} }, { waitMs: 0 });
      await expect.poll(async () => (await findReturnBulkAction(db.prisma, storeId, 'resume'))!.results.length, { timeout: 60_000, interval: 50 }).toBeGreaterThan(3);
      await first.stop();
      const left = (await findReturnBulkAction(db.prisma, storeId, 'resume'))!;
      expect(left.state).toBe('running');
      expect(left.results.length).toBeLessThan(40);
      second.start();
      await expect.poll(async () => (await findReturnBulkAction(db.prisma, storeId, 'resume'))!.state, { timeout: 120_000, interval: 200 }).toBe('done');
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      worker.start();
    }
    const done = (await findReturnBulkAction(db.prisma, storeId, 'resume'))!;
    expect(done.results).toHaveLength(40);
    expect(new Set(done.results.map((result) => result.id)).size).toBe(40);
    const notes = await db.prisma.returnNote.groupBy({ by: ['returnId'], where: { return: { storeId } }, _count: { _all: true } });
    expect(notes).toHaveLength(40);
    expect(notes.every((row) => row._count._all === 1)).toBe(true);
    const row = await db.prisma.returnBulkAction.findFirstOrThrow({ where: { storeId, key: 'resume' } });
    expect(row.leasedBy).toBeNull();
  }, 240_000);

  it('is looked for by two instances at once, and each return is acted on once', async () => {
    const { id: storeId } = await createStore(db.prisma, { name: 'Shared bulk store' });
    await insertBulkReturns(db.sql, storeId, { count: 30, items: 1, from: new Date('2026-09-01T00:00:00Z'), stepMs: 1000, batch: 'shared' });
    // A lease shorter than a return's operation on a busy machine: the instances take the action from each other.
    const other = new ReturnBulkActionWorker({ db: db.prisma, instanceId: 'other', leaseMs: 1_000, pollIntervalMs: 50 });
    const impatient = new ReturnBulkActionWorker({ db: db.prisma, instanceId: 'impatient', leaseMs: 1_000, pollIntervalMs: 50 });
    other.start();
    impatient.start();
    try {
      await startReturnBulkAction(db.prisma, db.reads, storeId, { key: 'shared', action: 'flag', matching: {} }, { waitMs: 0 });
      await expect.poll(async () => (await findReturnBulkAction(db.prisma, storeId, 'shared'))!.state, { timeout: 120_000, interval: 200 }).toBe('done');
    } finally {
      await Promise.all([other.stop(), impatient.stop()]);
    }
    expect(await changesPerReturn(storeId)).toEqual(Array(30).fill(1));
  }, 180_000);
});

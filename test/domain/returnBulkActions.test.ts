// Bulk actions on returns below the doors: the caller is answered while a large action still
// runs, reads of its progress are answered meanwhile, and the action ends with every return acted on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { findReturnBulkAction, startReturnBulkAction } from '../../src/domain/returnBulkActions.ts';
import { createStore } from '../../src/domain/stores.ts';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.close());

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

// The returns overview through the v3 door: its scopes (returns_read; the return rate also
// orders_read, the fees invoices_read), its figures as the domain counts them, and the
// `closed_at:` search the dashboard links its completions to (a return's last completion).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { processReturn, resetReturn } from '../../src/domain/returns/operations.ts';
import { addApiClient, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { createTestOrder } from '../support/returnFixtures.ts';
import { errorCodes, query } from './fixtures.ts';

let server: TestServer;
let store: TestStore;
const ids: Record<string, string> = {};

const OVERVIEW = `query($from: DateTime!, $to: DateTime!) { returnsOverview(from: $from, to: $to) {
  needingAction { total byStatus { status count } byAge { age minDays maxDays count } }
  days { day opened completed }
  refunds { currency refunded { amount } storeCredit { amount } days { day refunded { amount } } }
  fees { currency total { amount } }
  returnRate { unitsOrdered unitsReturned rate top { sku unitsOrdered unitsReturned rate } }
  reasons { reason units returns }
  completion { completed medianSeconds } } }`;

async function dated(returnId: string, createdAt: string, changes: string[]) {
  const db = server.db.sql;
  await db.query(`UPDATE "Return" SET "createdAt" = $2 WHERE "id" = $1`, [returnId, createdAt]);
  const rows = await db.query<{ id: string }>(`SELECT "id" FROM "ReturnStatusChange" WHERE "returnId" = $1 ORDER BY "createdAt", "id"`, [returnId]);
  for (const [i, at] of [createdAt, ...changes].entries()) await db.query(`UPDATE "ReturnStatusChange" SET "createdAt" = $2 WHERE "id" = $1`, [rows[i].id, at]);
}

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  const db = server.db.prisma;
  const order = await createTestOrder(server.db, store.storeId, { lines: [{ sku: 'MUG-1', quantity: 5 }] });
  await server.db.sql.query(`UPDATE "Order" SET "placedAt" = '2026-11-02T09:00:00Z' WHERE "id" = $1`, [order.id]);
  const make = async (key: string) => {
    ids[key] = (await createReturn(db, store.storeId, { orderId: order.id, items: [{ lineItemId: order.lineItems[0].id, quantity: 1, reason: 'Chipped' }] })).id;
  };
  // Completed on 11-05.
  await make('early');
  await processReturn(db, store.storeId, { id: ids.early });
  await dated(ids.early, '2026-11-03T09:00:00Z', ['2026-11-05T09:00:00Z']);
  // Completed on 11-05, reset, completed again on 11-07: closed on 11-07 only.
  await make('again');
  await processReturn(db, store.storeId, { id: ids.again });
  await resetReturn(db, store.storeId, { id: ids.again });
  await processReturn(db, store.storeId, { id: ids.again });
  await dated(ids.again, '2026-11-03T10:00:00Z', ['2026-11-05T10:00:00Z', '2026-11-06T10:00:00Z', '2026-11-07T10:00:00Z']);
  // Completed on 11-05, then reset: not closed at all.
  await make('reopened');
  await processReturn(db, store.storeId, { id: ids.reopened });
  await resetReturn(db, store.storeId, { id: ids.reopened });
  await dated(ids.reopened, '2026-11-03T11:00:00Z', ['2026-11-05T11:00:00Z', '2026-11-06T11:00:00Z']);
});

afterAll(async () => {
  await server?.close();
});

async function findReturns(q: string): Promise<string[]> {
  const data = await query<{ returns: { nodes: { id: string }[] } }>(server, store.secret, `query($q: String) { returns(first: 50, query: $q) { nodes { id } } }`, { q });
  return data.returns.nodes.map((n) => n.id).sort();
}

describe('closed_at: finds a return by its last completion', () => {
  it.each([
    ['a whole day holds only the returns last completed on it', 'closed_at:2026-11-05', () => [ids.early]],
    ['a later completion moves the return to its day', 'closed_at:2026-11-07', () => [ids.again]],
    ['on or after a day', 'closed_at:>=2026-11-06', () => [ids.again]],
    ['before a day: complete returns only', 'closed_at:<2026-11-06', () => [ids.early]],
    ['a range', 'closed_at:>=2026-11-01 closed_at:<2026-11-08', () => [ids.early, ids.again].sort()],
  ])('%s', async (_label, q, expected) => {
    expect(await findReturns(q)).toEqual(expected());
  });
});

describe('returnsOverview', () => {
  const period = { from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z' };

  it('answers the figures of the period', async () => {
    const data = await query<{ returnsOverview: Record<string, unknown> }>(server, store.secret, OVERVIEW, period);
    const overview = data.returnsOverview as {
      needingAction: { total: number };
      days: { day: string; opened: number; completed: number }[];
      returnRate: { unitsOrdered: number; unitsReturned: number; rate: number; top: { sku: string }[] };
      reasons: unknown[];
      completion: { completed: number; medianSeconds: number };
    };
    expect(overview.needingAction.total).toBe(1);
    expect(overview.days.map((d) => [d.day, d.opened, d.completed])).toEqual([
      ['2026-11-01', 0, 0],
      ['2026-11-02', 0, 0],
      ['2026-11-03', 3, 0],
      ['2026-11-04', 0, 0],
      ['2026-11-05', 0, 1],
      ['2026-11-06', 0, 0],
      ['2026-11-07', 0, 1],
    ]);
    expect(overview.returnRate).toEqual({ unitsOrdered: 5, unitsReturned: 3, rate: 0.6, top: [{ sku: 'MUG-1', unitsOrdered: 5, unitsReturned: 3, rate: 0.6 }] });
    expect(overview.reasons).toEqual([{ reason: 'Chipped', units: 3, returns: 3 }]);
    // 2 days and 4 days: the median of two is their mean.
    expect(overview.completion).toEqual({ completed: 2, medianSeconds: 3 * 86_400 });
  });

  it('needs returns_read', async () => {
    const { secret } = await addApiClient(server.db, store.storeId, ['orders_read']);
    const result = await graphql(server, secret, OVERVIEW, period);
    expect(errorCodes(result)).toContain('FORBIDDEN');
    expect(result.data).toBeNull();
  });

  it('gives the return rate only with orders_read and the fees only with invoices_read, the rest without', async () => {
    const { secret } = await addApiClient(server.db, store.storeId, ['returns_read']);
    const result = await graphql(server, secret, OVERVIEW, period);
    const overview = (result.data as { returnsOverview: Record<string, unknown> }).returnsOverview;
    expect(overview.returnRate).toBeNull();
    expect(overview.fees).toBeNull();
    expect((overview.completion as { completed: number }).completed).toBe(2);
    expect(errorCodes(result)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
  });

  it('refuses a period that ends before it starts', async () => {
    const result = await graphql(server, store.secret, OVERVIEW, { from: period.to, to: period.from });
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
  });
});

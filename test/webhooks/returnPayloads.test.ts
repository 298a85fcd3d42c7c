// REDO and LOOP deliveries show the return as it is when they are made. The deliveries a
// dispatcher starts together (a claim's batch) read their returns in one operation per
// store and payload kind: the statements do not grow with the batch, a return several
// subscriptions receive is read once, and one return that is gone fails only its own
// deliveries.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createStore } from '../../src/domain/stores.ts';
import type { StoreKind } from '../../src/generated/prisma/client.ts';
import { deliveryBody, ReturnReader, SubjectGone, type DeliveredEvent } from '../../src/webhooks/payloads.ts';
import { createTestDatabase } from '../support/db.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { testContexts } from '../support/contexts.ts';

let db: Database;
let storeId: string;
const returnIds: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  ({ id: storeId } = await createStore(db.prisma, { name: 'Payload store' }));
  for (let i = 0; i < 6; i++) {
    const order = await createTestOrder(db, storeId, { lines: [{ price: '12.50' }, { price: '4.00' }], customerEmail: `buyer${i}@example.com` });
    returnIds.push((await insertTestReturn(db, storeId, order)).id);
  }
});
afterAll(async () => db?.close());

function event(payload: 'REDO' | 'LOOP', subjectId: string): DeliveredEvent {
  return {
    payload,
    eventId: `evt_${subjectId}`,
    topic: 'return.updated',
    storeId,
    storeName: 'Payload store',
    storeKind: 'MERCHANT' as StoreKind,
    subjectId,
    createdAt: '2026-11-23T10:00:00.000Z',
    data: {},
  };
}

async function counted<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  let statements = 0;
  const stop = db.onStatement(() => statements++);
  try {
    return { result: await work(), statements };
  } finally {
    stop();
  }
}

it.each(['REDO', 'LOOP'] as const)('%s: a batch of deliveries reads its returns together, with the bodies of one-by-one reads', async (payload) => {
  const alone = await counted(() => deliveryBody(new ReturnReader(testContexts(db)), event(payload, returnIds[0])));
  const oneByOne: string[] = [];
  for (const id of returnIds) oneByOne.push(await deliveryBody(new ReturnReader(testContexts(db)), event(payload, id)));

  const reader = new ReturnReader(testContexts(db));
  // Every return twice, as two subscriptions would receive it.
  const subjects = [...returnIds, ...returnIds];
  const batch = await counted(() => Promise.all(subjects.map((id) => deliveryBody(reader, event(payload, id)))));

  expect(batch.result).toEqual([...oneByOne, ...oneByOne]);
  // One return is one statement (or two, LOOP's store lookup beside it); twelve bodies still cost that.
  expect(alone.statements).toBeGreaterThanOrEqual(1);
  expect(batch.statements).toBe(alone.statements);
});

it('fails only the deliveries of a return that is gone', async () => {
  const reader = new ReturnReader(testContexts(db));
  const gone = 'ffffffffffffffffffffffff';
  const outcomes = await Promise.allSettled([returnIds[0], gone, returnIds[1]].map((id) => deliveryBody(reader, event('REDO', id))));
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  const failure = (outcomes[1] as PromiseRejectedResult).reason;
  expect(failure).toBeInstanceOf(SubjectGone);
  expect(failure.message).toBe(`return ${gone} no longer exists`);
});

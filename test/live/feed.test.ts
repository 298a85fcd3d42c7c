// The feed's rule for subscribers left behind: a client that stops taking events is dropped
// as slow once maxPending wait; a backlog the service builds while its streams keep asking
// is not the client's, and only LAGGING_FACTOR (16) times maxPending drops it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createLiveFeed, type DropReason, type LiveFeed } from '../../src/live/feed.ts';
import { LIVE_CHANNEL } from '../../src/live/announcements.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;
let feed: LiveFeed;
const dropped: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  feed = createLiveFeed({
    db,
    logger: createLogger('silent'),
    maxPending: 3,
    observer: { subscriptionOpened() {}, subscriptionClosed() {}, eventSent() {}, subscriberDropped: (reason) => dropped.push(reason) },
  });
  await feed.ready;
});
afterAll(async () => {
  await feed?.close();
  await db?.close();
});

let sequence = 0;
/** Announces `count` level changes of the store as a committed change would, and waits until the feed heard them. */
async function announce(storeId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const payload = JSON.stringify({ id: `evt_${++sequence}`, storeId, topic: 'inventory_level.updated', subjectId: 'li_1', status: null, locationId: 'loc_1', productId: 'prd_1', locationStoreId: null });
    await db.sql.query('SELECT pg_notify($1, $2)', [LIVE_CHANNEL, payload]);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

function subscriber(storeId: string, reasons: DropReason[]) {
  return feed.subscribe({ storeId, accepts: () => true, onOverflow: (reason) => reasons.push(reason) });
}

describe('a subscriber left behind', () => {
  it('keeps a backlog of the service while its stream keeps asking, up to 16 times maxPending', async () => {
    const reasons: DropReason[] = [];
    const events = subscriber('str_lagging', reasons);
    await announce('str_lagging', 20);
    expect(reasons).toEqual([]);
    for (let i = 0; i < 20; i++) expect((await events.next()).done).toBe(false);
    await announce('str_lagging', 3 * 16 + 1);
    expect(reasons).toEqual(['lagging']);
    expect(dropped).toContain('lagging');
  });

  it('drops a subscriber whose stream asked for nothing for a second once maxPending wait', async () => {
    const reasons: DropReason[] = [];
    const events = subscriber('str_slow', reasons);
    await announce('str_slow', 3);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(reasons).toEqual([]);
    await announce('str_slow', 1);
    expect(reasons).toEqual(['slow']);
    // Its stream ends: what was waiting is discarded with it.
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it("never hands one store's events to another's subscriber", async () => {
    const events = subscriber('str_quiet', []);
    await announce('str_other', 2);
    const next = events.next();
    const first = await Promise.race([next, new Promise((resolve) => setTimeout(() => resolve('nothing'), 200))]);
    expect(first).toBe('nothing');
    await events.return!();
  });
});

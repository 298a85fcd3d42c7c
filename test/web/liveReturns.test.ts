// The dashboard's returns list follows changes (issue 26): /admin/returns/events streams the
// signed-in store's returnUpdated subscription as server-sent events, and the list page
// loads a script that refreshes the table from it. Without script the page is a plain list.
// On PostgreSQL the changes are committed through a connection of their own, as another
// instance would; on PGlite through the server's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { flagReturn, processReturn } from '../../src/domain/returns/operations.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { signedIn, WebClient } from './helpers.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

let server: TestServer;
let writer: Database;
let store: TestStore;
let other: TestStore;
let web: WebClient;
const streams: EventStream[] = [];

interface EventStream {
  status: number;
  headers: Headers;
  /** The next event (comments aside); rejects after `timeoutMs`. */
  nextEvent(timeoutMs?: number): Promise<{ event: string; data: string }>;
  /** Comment lines seen so far: the server's heartbeats. */
  comments(): number;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens the dashboard's event stream with the client's cookies, as a browser's EventSource does. */
async function openStream(client: WebClient, path = '/admin/returns/events'): Promise<EventStream> {
  const abort = new AbortController();
  const response = await fetch(server.url + path, { headers: { accept: 'text/event-stream', cookie: client.cookieHeader }, redirect: 'manual', signal: abort.signal });
  const events: { event: string; data: string }[] = [];
  let comments = 0;
  let wake = () => {};
  let finished = false;
  let ended = Promise.resolve();
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    ended = (async () => {
      let buffer = '';
      try {
        for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
          buffer += chunk;
          let split: number;
          while ((split = buffer.indexOf('\n\n')) >= 0) {
            const lines = buffer.slice(0, split).split('\n');
            buffer = buffer.slice(split + 2);
            comments += lines.filter((line) => line.startsWith(':')).length;
            const event = lines.find((line) => line.startsWith('event:'))?.slice(6).trim();
            if (event) events.push({ event, data: lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n') });
          }
          wake();
        }
      } catch {
        // closed by the test
      }
      finished = true;
      wake();
    })();
  } else {
    await response.text();
  }
  const stream: EventStream = {
    status: response.status,
    headers: response.headers,
    comments: () => comments,
    ended,
    close: () => abort.abort(),
    async nextEvent(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length === 0) {
        if (finished) throw new Error('the stream ended');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return events.shift()!;
    },
  };
  streams.push(stream);
  return stream;
}

const payload = (event: { event: string; data: string }) => {
  expect(event.event).toBe('next');
  return JSON.parse(event.data) as { data?: { returnUpdated: { id: string; status: string } }; errors?: unknown[] };
};

async function newReturn(storeId: string) {
  return insertTestReturn(server.db, storeId, await createTestOrder(server.db, storeId));
}

beforeAll(async () => {
  server = await startTestServer({ subscriptions: { perClient: 2, maxPendingEvents: 16 } });
  writer = onPostgres ? await openDatabase(server.db.url) : server.db;
  store = await createTestStore(server.db, { name: 'Live Outfitters' });
  other = await createTestStore(server.db, { name: 'Other store' });
  web = await signedIn(server, store.storeId);
});

afterAll(async () => {
  for (const stream of streams) stream.close();
  if (writer !== server.db) await writer?.close();
  await server?.close();
});

describe('the returns event stream', () => {
  it('brings a status change of a return of the store within 5 s, with heartbeats meanwhile', async () => {
    const ret = await newReturn(store.storeId);
    const stream = await openStream(web);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-store');
    const started = Date.now();
    await flagReturn(writer.prisma, store.storeId, { id: ret.id });
    expect(payload(await stream.nextEvent(5_000))).toEqual({ data: { returnUpdated: { id: ret.id, status: 'FLAGGED' } } });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The first comment goes out at once; the others every 300 ms under test (12 s otherwise).
    await expect.poll(() => stream.comments(), { timeout: 3_000 }).toBeGreaterThanOrEqual(3);
    stream.close();
  });

  it("never carries another store's changes", async () => {
    const stream = await openStream(web);
    const foreign = await newReturn(other.storeId);
    await flagReturn(writer.prisma, other.storeId, { id: foreign.id });
    const own = await newReturn(store.storeId);
    await processReturn(writer.prisma, store.storeId, { id: own.id });
    // Events come in commit order: the first one is the store's own change, so the other store's never came.
    expect(payload(await stream.nextEvent())).toEqual({ data: { returnUpdated: { id: own.id, status: 'COMPLETE' } } });
    stream.close();
  });

  it('is refused without a session, or with a signed-out one: a 401 page, no stream', async () => {
    const anonymous = await openStream(new WebClient(server));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^text\/html/);

    const leaving = await signedIn(server, store.storeId, 'leaving@example.com');
    const page = await leaving.get('/admin/returns');
    const token = leaving.jar.get('merchant_session')!;
    expect((await leaving.post('/admin/logout', { csrf: WebClient.csrfOf(page.text) })).status).toBe(303);
    leaving.jar.set('merchant_session', token);
    expect((await openStream(leaving)).status).toBe(401);
  });

  it('ends when its session ends, before sending a change made after it', async () => {
    const leaving = await signedIn(server, store.storeId, 'signing-out@example.com');
    const stream = await openStream(leaving);
    expect(stream.status).toBe(200);
    const page = await leaving.get('/admin/returns');
    expect((await leaving.post('/admin/logout', { csrf: WebClient.csrfOf(page.text) })).status).toBe(303);
    const ret = await newReturn(store.storeId);
    await flagReturn(writer.prisma, store.storeId, { id: ret.id });
    await stream.ended;
    await expect(stream.nextEvent(100)).rejects.toThrow('the stream ended');
  });

  it("holds the user's limit of open streams (429 past it) and frees a slot when a page closes", async () => {
    const user = await signedIn(server, store.storeId, 'tabs@example.com');
    const held = [await openStream(user), await openStream(user)];
    expect(held.map((s) => s.status)).toEqual([200, 200]);
    const refused = await openStream(user);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    // Another user of the same store has slots of its own.
    expect((await openStream(web)).status).toBe(200);

    held[0].close();
    await expect.poll(async () => (await openStream(user)).status, { timeout: 3_000 }).toBe(200);
  });
});

describe('the returns list page', () => {
  it('lists the returns with its filter and links, and only loads a script file of the server that the CSP allows', async () => {
    const ret = await newReturn(store.storeId);
    const page = await web.get('/admin/returns?status=OPEN');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<tr data-return-id="${ret.id}"><td data-label="Choose"><input type="checkbox" name="id" value="${ret.id}" form="bulk-action" aria-label="Choose return #${ret.number}"></td><td data-label="Return"><a href="/admin/returns/${ret.id}">#${ret.number}</a>`);
    expect(page.text).toContain('<form method="get" action="/admin/returns" class="card">');
    expect(page.text).toContain('<div id="returns-list" aria-live="polite" data-live-events="/admin/returns/events">');
    expect(page.text.match(/<script[^>]*>/g)).toEqual(['<script src="/admin/live-returns.js" defer>']);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    // Pages that run no script allow none.
    const orders = await web.get('/admin/orders');
    expect(orders.headers.get('content-security-policy')).not.toContain('script-src');
    expect(orders.text).not.toContain('<script');

    const script = await web.request('GET', '/admin/live-returns.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(script.text).toContain("new EventSource(region.getAttribute('data-live-events'))");
    // Events only: nothing in the script reads the list on a timer.
    expect(script.text).not.toMatch(/setInterval|setTimeout/);
  });
});

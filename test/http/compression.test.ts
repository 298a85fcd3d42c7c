// Compressed answers on every door (issue 35): negotiated by Accept-Encoding, brotli or gzip,
// Vary on every answer that could have been compressed, nothing compressed for a client that
// did not ask, below the threshold, for HEAD or for a status without content. A compressed
// answer decodes to exactly the bytes of the uncompressed one, a streamed answer too (the
// warehouse list, the invoice CSV), and an event stream still brings each event as it happens.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { answerEncoding, chunkEncoder, COMPRESSION_THRESHOLD_BYTES, negotiateEncoding, type ContentCoding } from '../../src/http/compression.ts';
import { WHOLE_LIST_PAGE_SIZE } from '../../src/compat/routes/returns.ts';
import { flagReturn } from '../../src/domain/returns/operations.ts';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { signedIn } from '../web/helpers.ts';

describe('negotiating Accept-Encoding (RFC 9110 §12.5.3)', () => {
  it.each([
    [undefined, undefined, false],
    ['', undefined, false],
    ['gzip', 'gzip', false],
    ['br', 'br', false],
    ['gzip, deflate, br', 'br', false],
    ['GZIP', 'gzip', false],
    ['x-gzip', 'gzip', false],
    ['br;q=0.5, gzip', 'gzip', false],
    ['br;q=0.8, gzip;q=0.8', 'br', false],
    ['br;q=0, gzip;q=0.1', 'gzip', false],
    ['deflate', undefined, false],
    ['identity', undefined, false],
    ['*', 'br', false],
    ['br;q=0, *', 'gzip', false],
    ['gzip;q=0.5, identity', undefined, false],
    ['gzip, identity;q=0.5', 'gzip', false],
    ['identity;q=0, gzip', 'gzip', true],
    ['*;q=0', undefined, true],
    ['*;q=0, identity', undefined, false],
    ['br;q=banana', undefined, false],
    ['br;q=1.5, gzip', 'gzip', false],
  ])('%j -> %s (identity refused: %s)', (header, coding, identityRefused) => {
    expect(negotiateEncoding(header)).toEqual({ ...(coding ? { coding } : {}), identityRefused });
  });
});

describe('which answers are compressed', () => {
  const big = 'x'.repeat(COMPRESSION_THRESHOLD_BYTES);
  const small = 'x'.repeat(COMPRESSION_THRESHOLD_BYTES - 1);
  const get = (acceptEncoding?: string, method = 'GET') => ({ method, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });
  const jsonAnswer = (body: string, status = 200, headers: Record<string, string> = {}) => ({ status, headers: { 'content-type': 'application/json', ...headers }, body });

  it('compresses a JSON answer at the threshold for a client that asked, dropping a stale Content-Length', () => {
    expect(answerEncoding(get('br'), jsonAnswer(big, 200, { 'content-length': '1024' }))).toEqual({ coding: 'br', headers: { 'content-type': 'application/json', vary: 'Accept-Encoding', 'content-encoding': 'br' } });
  });

  it('answers as is, with Vary, below the threshold, without Accept-Encoding, and for HEAD', () => {
    const varied = { headers: { 'content-type': 'application/json', vary: 'Accept-Encoding' } };
    expect(answerEncoding(get('gzip'), jsonAnswer(small))).toEqual(varied);
    expect(answerEncoding(get(), jsonAnswer(big))).toEqual(varied);
    expect(answerEncoding(get('gzip', 'HEAD'), jsonAnswer(big))).toEqual(varied);
  });

  it('compresses below the threshold when the client refused identity', () => {
    expect(answerEncoding(get('identity;q=0, gzip'), jsonAnswer(small)).coding).toBe('gzip');
  });

  it('adds Accept-Encoding to a Vary the door set, once', () => {
    expect(answerEncoding(get('br'), jsonAnswer(big, 200, { Vary: 'Origin' })).headers).toEqual({ 'content-type': 'application/json', vary: 'Origin, Accept-Encoding', 'content-encoding': 'br' });
    expect(answerEncoding(get('br'), jsonAnswer(big, 200, { vary: 'accept-encoding' })).headers.vary).toBe('accept-encoding');
  });

  it('never touches an answer already encoded, without content, or of a type that does not compress', () => {
    const encoded = jsonAnswer(big, 200, { 'content-encoding': 'gzip' });
    expect(answerEncoding(get('br'), encoded)).toEqual({ headers: encoded.headers });
    expect(answerEncoding(get('br'), { status: 204 })).toEqual({ headers: {} });
    const png = { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.alloc(4096) };
    expect(answerEncoding(get('br'), png)).toEqual({ headers: png.headers });
  });

  it('gives a 304 the Vary its 200 has, and no coding', () => {
    expect(answerEncoding(get('br'), { status: 304, headers: { etag: '"1"' } })).toEqual({ headers: { etag: '"1"', vary: 'Accept-Encoding' } });
  });

  it('compresses a stream of any size, an event stream yoga marked `Content-Encoding: none` too', () => {
    const stream = (async function* () {})();
    expect(answerEncoding(get('gzip'), { status: 200, headers: { 'content-type': 'text/event-stream', 'Content-Encoding': 'none' }, stream })).toEqual({
      coding: 'gzip',
      headers: { 'content-type': 'text/event-stream', vary: 'Accept-Encoding', 'content-encoding': 'gzip' },
    });
  });
});

/** Decodes what has arrived so far, as a client reading a flushed stream does. */
function decodeSoFar(bytes: Buffer, coding: ContentCoding): string {
  return (coding === 'br' ? zlib.brotliDecompressSync(bytes, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }) : zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH })).toString();
}

function decode(bytes: Buffer, coding: string | undefined): Buffer {
  if (coding === 'br') return zlib.brotliDecompressSync(bytes);
  if (coding === 'gzip') return zlib.gunzipSync(bytes);
  if (coding === undefined) return bytes;
  throw new Error(`unexpected content-encoding ${coding}`);
}

describe.each(['br', 'gzip'] as const)('a streamed answer in %s', (coding) => {
  it('can be decoded after each chunk, up to that chunk', async () => {
    const encoder = chunkEncoder(coding);
    const chunks = ['[', '{"id":1,"name":"first"}', ',{"id":2,"name":"second"}'.repeat(50), ']'];
    let sent = Buffer.alloc(0);
    let written = '';
    for (const chunk of chunks) {
      sent = Buffer.concat([sent, await encoder.write(chunk)]);
      written += chunk;
      expect(decodeSoFar(sent, coding)).toBe(written);
    }
    sent = Buffer.concat([sent, await encoder.end()]);
    expect(decode(sent, coding).toString()).toBe(written);
    encoder.destroy();
  });
});

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as it came over the wire. */
  bytes: Buffer;
  /** The body decoded by its Content-Encoding. */
  text: string;
}

/** A request whose answer is read as sent: node:http, unlike fetch, neither asks for nor decodes a coding by itself. */
function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const coding = res.headers['content-encoding'];
        resolve({ status: res.statusCode!, headers: res.headers, bytes, text: decode(bytes, coding).toString() });
      });
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

let server: TestServer;
let store: TestStore;
let dashboardCookie: string;
const RETURN_LIST = `/api/v1/warehouse/return/list?from=2026-03-02T10:00:00.000Z&to=2026-03-02T11:00:00.000Z`;
const LISTED = 3 * WHOLE_LIST_PAGE_SIZE + 17;
const CSV_ITEMS = 450;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  await insertBulkReturns(server.db.sql, store.storeId, { count: LISTED, items: 2, from: new Date('2026-03-02T10:00:00Z'), stepMs: 1000, batch: 'zip' });
  await server.db.sql.query(`INSERT INTO "Invoice" ("id", "storeId", "month", "currency", "updatedAt") VALUES ('inv_zip', $1, '2026-02-01', 'USD', now())`, [store.storeId]);
  await server.db.sql.query(
    `INSERT INTO "InvoiceItem" ("id", "invoiceId", "kind", "description", "subjectId", "amount", "occurredAt")
     SELECT 'ini_zip_' || g, 'inv_zip', 'RETURN_PROCESSING_FEE', 'Return fee ' || g, 'ret_' || g, 2.35, '2026-02-03'::timestamp + g * interval '1 second'
     FROM generate_series(1, $1) AS g`,
    [CSV_ITEMS],
  );
  dashboardCookie = (await signedIn(server, store.storeId)).cookieHeader;
});
afterAll(async () => server?.close());

const auth = () => ({ authorization: `Bearer ${store.secret}` });
const RETURNS_QUERY = '{ returns(first: 20) { nodes { id number status createdAt order { id name lineItems { id title sku quantity } } } } }';

/** One request per door, each answering more than the threshold. */
const doors: { door: string; request: () => { path: string; method?: string; headers?: Record<string, string>; body?: string } }[] = [
  { door: 'REST v2.2', request: () => ({ path: `/v2.2/stores/${store.storeId}/returns?page-size=20`, headers: auth() }) },
  { door: '/v3/rest (SOFA)', request: () => ({ path: '/v3/rest/returns?first=20', headers: auth() }) },
  {
    door: '/v3/graphql',
    request: () => ({ path: '/v3/graphql', method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ query: RETURNS_QUERY }) }),
  },
  { door: '/v3/graphql by GET', request: () => ({ path: `/v3/graphql?query=${encodeURIComponent(RETURNS_QUERY)}`, headers: auth() }) },
  { door: 'warehouse compat, paginated', request: () => ({ path: `${RETURN_LIST}&paginate=true&pageSize=50`, headers: auth() }) },
  { door: 'warehouse compat, streamed list', request: () => ({ path: RETURN_LIST, headers: auth() }) },
  { door: 'REST CSV export, streamed', request: () => ({ path: '/v2.2/invoices/inv_zip/items.csv', headers: auth() }) },
  { door: 'web page (dashboard return list)', request: () => ({ path: '/admin/returns', headers: { cookie: dashboardCookie } }) },
];

/**
 * The answer as text, each CSRF token (masked afresh in every page against BREACH) and the bulk
 * action form's key (new in every page, so that a second send of one form acts once) left out:
 * two renders of one page differ there only.
 */
const unmasked = (bytes: Buffer) => bytes.toString('utf8').replace(/name="(csrf|key)" value="[^"]+"/g, 'name="$1"');

describe.each(doors)('$door', ({ request }) => {
  const ask = (acceptEncoding?: string) => {
    const { path, method, headers, body } = request();
    return rawRequest(server.url + path, { method, body, headers: { ...headers, ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }) } });
  };

  it('answers br and gzip that decode to exactly the uncompressed bytes, with Vary', async () => {
    const plain = await ask();
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
    expect(plain.bytes.length).toBeGreaterThanOrEqual(COMPRESSION_THRESHOLD_BYTES);
    for (const coding of ['br', 'gzip'] as const) {
      const compressed = await ask(coding === 'br' ? 'gzip;q=0.9, br' : 'gzip, br;q=0.5');
      expect(compressed.status).toBe(200);
      expect(compressed.headers['content-encoding']).toBe(coding);
      expect(compressed.headers.vary).toMatch(/Accept-Encoding/);
      expect(compressed.headers['content-type']).toBe(plain.headers['content-type']);
      expect(unmasked(decode(compressed.bytes, coding))).toBe(unmasked(plain.bytes));
      expect(compressed.bytes.length).toBeLessThan(plain.bytes.length / 2);
      if (compressed.headers['content-length'] !== undefined) expect(Number(compressed.headers['content-length'])).toBe(compressed.bytes.length);
    }
  });

  it('answers as is a client that asked for identity only', async () => {
    const plain = await ask('identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
  });
});

describe('streamed answers', () => {
  it('holds every return of the compat list, once decoded', async () => {
    const answer = await rawRequest(server.url + RETURN_LIST, { headers: { ...auth(), 'accept-encoding': 'br' } });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(JSON.parse(answer.text)).toHaveLength(LISTED);
  });

  it('stops reading pages once the client has left mid-answer', async () => {
    const pageReads = vi.spyOn(server.db.reads.return, 'findMany');
    try {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(server.url + RETURN_LIST, { agent: false, headers: { ...auth(), 'accept-encoding': 'gzip' } }, (res) => {
          expect(res.headers['content-encoding']).toBe('gzip');
          res.once('data', () => {
            request.destroy();
            resolve();
          });
        });
        request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
      });
      // The read in flight when the client left may finish; none starts after it.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const afterLeaving = pageReads.mock.calls.length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(pageReads.mock.calls.length).toBe(afterLeaving);
      expect(afterLeaving).toBeLessThan(Math.ceil(LISTED / WHOLE_LIST_PAGE_SIZE) + 1);
    } finally {
      pageReads.mockRestore();
    }
  });
});

describe('small answers and answers without content', () => {
  it.each([
    ['REST problem', '/v2.2/no-such-route'],
    ['/v3/rest problem', '/v3/rest/no-such-route'],
    ['warehouse error', '/api/v1/warehouse/no-such-route'],
  ])('%s: below the threshold, as is, with Vary', async (_door, path) => {
    const answer = await rawRequest(server.url + path, { headers: { ...auth(), 'accept-encoding': 'br, gzip' } });
    expect(answer.bytes.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toMatch(/Accept-Encoding/);
  });

  it('/v3/graphql: a small result as is', async () => {
    const answer = await rawRequest(`${server.url}/v3/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { ...auth(), 'accept-encoding': 'br' } });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('{"data":{"__typename":"Query"}}');
    expect(answer.headers['content-encoding']).toBeUndefined();
  });

  it('HEAD: no coding and no body, with Vary', async () => {
    const answer = await rawRequest(`${server.url}/v2.2/stores/${store.storeId}/returns?page-size=20`, { method: 'HEAD', headers: { ...auth(), 'accept-encoding': 'br' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toMatch(/Accept-Encoding/);
    expect(answer.bytes.length).toBe(0);
  });
});

describe.each(['br', 'gzip'] as const)('a subscription (server-sent events) in %s', (coding) => {
  it('brings each event decodable as it happens', async () => {
    const order = await createTestOrder(server.db, store.storeId);
    const { id } = await insertTestReturn(server.db, store.storeId, order);
    const decoded: string[] = [];
    const waiters = new Set<() => void>();
    const request = http.request(`${server.url}/v3/graphql`, {
      method: 'POST',
      agent: false,
      headers: { ...auth(), 'content-type': 'application/json', accept: 'text/event-stream', 'accept-encoding': coding },
    });
    const headers = new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      request.on('response', (res) => {
        const decoder = coding === 'br' ? zlib.createBrotliDecompress() : zlib.createGunzip();
        res.pipe(decoder);
        decoder.on('data', (text: Buffer) => {
          decoded.push(text.toString());
          for (const wake of waiters) wake();
        });
        resolve(res.headers);
      });
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
    });
    const heard = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!decoded.join('').includes(text)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    try {
      request.end(JSON.stringify({ query: `subscription { returnUpdated { id status } }` }));
      const answered = await headers;
      expect(answered['content-type']).toMatch(/^text\/event-stream/);
      expect(answered['content-encoding']).toBe(coding);
      expect(answered.vary).toMatch(/Accept-Encoding/);
      // Subscribed once the stream has opened (its first bytes, yoga's opening comment, decode).
      await heard(':');
      await flagReturn(server.db.prisma, store.storeId, { id });
      // The event arrives while the stream stays open: it was flushed, not held for the end.
      await heard(`"returnUpdated":{"id":"${id}","status":"FLAGGED"}`);
      expect(decoded.join('')).toMatch(/event: next\ndata: \{"data":\{"returnUpdated"/);
    } finally {
      request.destroy();
    }
  });
});

// The HTTP server and its doors before any route runs: health, unknown paths, the
// body limit, malformed JSON and malformed credentials, each in the door's format.
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
});
afterAll(async () => server?.close());

const oversized = 'x'.repeat(1024 * 1024 + 1);

describe('health', () => {
  it('answers /healthz and /readyz without credentials', async () => {
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok' });
  });
});

describe('unknown paths', () => {
  it('404 outside every door', async () => {
    const res = await call(server, 'GET', '/nope');
    expect(res.status).toBe(404);
  });
  it('404 problem+json on the REST door', async () => {
    const res = await call(server, 'GET', `/v2.2/stores/${store.storeId}/nothing-here`, { secret: store.secret });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404 });
  });
  it('404 in the compat error shape', async () => {
    const res = await call(server, 'GET', '/api/v1/warehouse/nothing', { secret: store.secret });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'NOT_FOUND', http_code: 404 } });
  });
  it('404 as a GraphQL error on /v3', async () => {
    const res = await call(server, 'GET', '/v3/other', { secret: store.secret });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ errors: [{ extensions: { code: 'NOT_FOUND' } }] });
  });
});

// RFC 9110 §8.4: a request body may come encoded (Content-Encoding); the server decodes gzip,
// deflate and br, holds the decoded body to the same 1 MiB (a small body that inflates past it
// is refused 413 while inflating, never held whole), and refuses any other coding 415 naming
// the ones it reads (§15.5.16).
describe('compressed request bodies', () => {
  const operation = JSON.stringify({ query: '{ __typename }' });
  const encoders: Record<string, (bytes: Buffer) => Buffer> = { gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync };
  const post = (path: string, coding: string, body: Buffer, contentType = 'application/json') =>
    fetch(server.url + path, { method: 'POST', headers: { authorization: `Bearer ${store.secret}`, 'content-type': contentType, 'content-encoding': coding }, body: new Uint8Array(body) });

  it.each(Object.keys(encoders))('reads a %s body on every door', async (coding) => {
    const v3 = await post('/v3/graphql', coding, encoders[coding](Buffer.from(operation)));
    expect([coding, v3.status, await v3.json()]).toEqual([coding, 200, { data: { __typename: 'Query' } }]);
    const upserted = await post('/v3/rest/upsert-customer', coding, encoders[coding](Buffer.from(JSON.stringify({ input: { email: `${coding}@example.com` } }))));
    expect([coding, upserted.status]).toEqual([coding, 200]);
    expect(await upserted.text()).toContain(`${coding}@example.com`);
  });

  it('refuses with 413 a body that inflates past 1 MiB, in each door\'s format', async () => {
    const bomb = zlib.gzipSync(Buffer.from(`{"query":"${' '.repeat(8 * 1024 * 1024)}"}`));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const v3 = await post('/v3/graphql', 'gzip', bomb);
    expect(v3.status).toBe(413);
    expect(await v3.json()).toMatchObject({ errors: [{ extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
    const rest = await post(`/v2.2/stores/${store.storeId}/custom/orders`, 'gzip', bomb);
    expect(rest.status).toBe(413);
    expect(rest.headers.get('content-type')).toContain('application/problem+json');
  });

  it('refuses another coding with 415 and Accept-Encoding naming the ones it reads, and a corrupt body with 400', async () => {
    const v3 = await post('/v3/graphql', 'compress', Buffer.from(operation));
    expect(v3.status).toBe(415);
    expect(v3.headers.get('accept-encoding')).toBe('gzip, deflate, br');
    expect(await v3.json()).toMatchObject({ errors: [{ extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } }] });
    const compat = await post('/api/v1/warehouse/return/1/note', 'gzip, compress', encoders.gzip(Buffer.from('{}')));
    expect(compat.status).toBe(415);
    expect(await compat.json()).toMatchObject({ error: { http_code: 415 } });
    const corrupt = await post('/v3/graphql', 'gzip', Buffer.from(operation));
    expect(corrupt.status).toBe(400);
  });
});

describe('request bodies over 1 MiB are refused with 413 before any resolver', () => {
  it('on v3', async () => {
    const res = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: JSON.stringify({ query: oversized }) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ errors: [{ extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
  });
  it('on REST', async () => {
    const res = await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: oversized });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });
  it('on compat', async () => {
    const res = await call(server, 'POST', '/api/v1/warehouse/return/1/note', { secret: store.secret, body: oversized });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: { http_code: 413 } });
  });
  it('when the body is chunked without a Content-Length', async () => {
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 17; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(64 * 1024)));
        controller.close();
      },
    });
    const res = await fetch(`${server.url}/v3/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.secret}`, 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});

describe('malformed input never reaches a resolver', () => {
  it('invalid JSON on v3 is a 400 GraphQL error', async () => {
    const res = await call(server, 'POST', '/v3/graphql', { secret: store.secret, body: '{"query": ' });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('errors');
  });
  it('a malformed Authorization header is 401 on every door', async () => {
    const headers = { authorization: 'Basic Zm9vOmJhcg==' };
    const v3 = await call(server, 'POST', '/v3/graphql', { headers, body: { query: '{ store { id } }' } });
    expect(v3.status).toBe(401);
    expect(v3.body).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    const compat = await call(server, 'GET', '/api/v1/warehouse/return/list', { headers });
    expect(compat.status).toBe(401);
    expect(compat.body).toMatchObject({ error: { code: 'UNAUTHORIZED', http_code: 401 } });
  });
});

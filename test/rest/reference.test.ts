// The REST door serves every operation of the reference document's tag groups that it
// claims (SERVED_TAG_GROUPS): each is in the route table, and a real request with a valid
// secret reaches a route (never the door's "no route" 404 or a 405). The reference checker
// used by every REST test must itself be able to fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/routeTable.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { referenceOperations, referenceResponseProblems, SERVED_TAG_GROUPS } from '../support/reference.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
});
afterAll(async () => server?.close());

const operations = referenceOperations(SERVED_TAG_GROUPS);

function concrete(path: string, storeId: string): string {
  return path.replace('{storeId}', storeId).replace(/\{(\w+)\}/g, (_m, name: string) => `unknown-${name}`);
}

describe('reference operations', () => {
  it('the tag groups name operations', () => {
    expect(operations.length).toBeGreaterThanOrEqual(36);
  });

  const table = new RouteTable(restRoutes);
  const isRouted = (op: { method: string; path: string }) => {
    const matched = table.match(op.method, op.path);
    return Boolean(matched && 'route' in matched);
  };
  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))('%s is routed', async (_name, op) => {
    expect(isRouted(op), `${op.method} ${op.path} has no route`).toBe(true);
    const path = `/v2.2${concrete(op.path, store.storeId)}`;
    const res = await call(server, op.method, path, {
      secret: store.secret,
      body: op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
      referenceCheck: false,
    });
    expect(res.status, `${op.method} ${path} answered ${res.status}: ${res.text.slice(0, 200)}`).not.toBe(405);
    expect(res.text).not.toMatch(/no route for/);
  });
});

describe('the reference checker', () => {
  const headers = (type: string) => new Headers({ 'content-type': type });
  it('refuses a body outside the documented schema', () => {
    const problems = referenceResponseProblems('PUT', '/v2.2/stores/str_x/customers', { status: 200, headers: headers('application/json'), text: '{"id":1}' });
    expect(problems?.join('\n')).toMatch(/does not match the reference schema/);
  });
  it('refuses a media type the document does not declare for the status', () => {
    const problems = referenceResponseProblems('POST', '/v2.2/stores/str_x/orders', { status: 409, headers: headers('application/problem+json'), text: '{}' });
    expect(problems?.join('\n')).toMatch(/content-type application\/problem\+json is not one of application\/json/);
  });
  it('accepts a documented answer and ignores operations the document does not have', () => {
    const ok = referenceResponseProblems('PUT', '/v2.2/stores/str_x/customers', {
      status: 201,
      headers: headers('application/json'),
      text: JSON.stringify({ id: 'cus_1', email: 'a@example.com', created: true }),
    });
    expect(ok).toEqual([]);
    expect(referenceResponseProblems('GET', '/v2.2/openapi.json', { status: 200, headers: headers('application/json'), text: '{}' })).toBeUndefined();
  });
});

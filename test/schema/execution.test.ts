// graphql-js as patched for the read path (patches/graphql+16.15.0.patch): a field with no
// arguments gets a plain empty object instead of a dictionary-mode one, and a selection's
// result is a plain object, not Object.create(null). Both were most of the executor's own time
// on a page of returns. A plain object treats the key "__proto__" as its prototype, so the
// patch writes that one response key as an own property: these tests hold it to that. They run
// operations as the REST and compat doors do (runOperation, graphql-js's execute); /v3/graphql
// executes with graphql-yoga's own executor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, isAuthFailure } from '../../src/auth/authenticate.ts';
import { defineOperation, runOperation } from '../../src/schema/execute.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { testContexts } from '../support/contexts.ts';

let server: TestServer;
let store: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
});
afterAll(async () => server?.close());

async function data(source: string): Promise<Record<string, unknown>> {
  const auth = await authenticate(server.db.prisma, store.secret);
  if (isAuthFailure(auth)) throw new Error('the test store did not authenticate');
  const ctx = testContexts(server.db)({ auth, door: 'rest', requestId: 'execution-test' });
  const outcome = await runOperation(defineOperation(source), {}, ctx);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.data;
}

describe('the patched executor', () => {
  it('answers an alias named __proto__ as an ordinary key, at the root and below it', async () => {
    const answer = await data('{ __proto__: store { __proto__: id constructor: id } constructor: __typename }');
    expect(Object.keys(answer)).toEqual(['__proto__', 'constructor']);
    const proto = Object.getOwnPropertyDescriptor(answer, '__proto__')?.value as Record<string, unknown>;
    expect(Object.keys(proto)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toBe(store.storeId);
    expect(proto.constructor).toBe(store.storeId);
    expect(answer.constructor).toBe('Query');
    expect(JSON.parse(JSON.stringify(answer))).toEqual(JSON.parse(`{"__proto__":{"__proto__":"${store.storeId}","constructor":"${store.storeId}"},"constructor":"Query"}`));
  });

  it('still applies argument defaults and given arguments to fields that have arguments', async () => {
    const answer = await data('{ returns { nodes { id } } few: returns(first: 1) { pageInfo { hasNextPage } } }');
    expect(answer.returns).toEqual({ nodes: [] });
    expect(answer.few).toEqual({ pageInfo: { hasNextPage: false } });
  });
});

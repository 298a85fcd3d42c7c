// Persisted operations on /v3/graphql (issue 35): automatic persisted queries as Apollo Client,
// urql and Relay send them, registered through one instance and served by another on the same
// database (on PostgreSQL each instance has its own connections), the shared store bounded; and
// the trusted-documents mode, in which only the operations of a manifest run.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { createPersistedQueryStore } from '../../src/v3/persistedQueries.ts';
import { readTrustedDocuments } from '../../src/formats/trustedDocuments.ts';
import { call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

interface GraphQLAnswer {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

async function graphqlRequest(server: TestServer, secret: string | undefined, request: { get?: Record<string, unknown>; post?: Record<string, unknown> }): Promise<GraphQLAnswer> {
  const headers: Record<string, string> = secret ? { authorization: `Bearer ${secret}` } : {};
  let response: Response;
  if (request.get) {
    const search = new URLSearchParams(Object.entries(request.get).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
    response = await fetch(`${server.url}/v3/graphql?${search}`, { headers });
  } else {
    response = await fetch(`${server.url}/v3/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(request.post) });
  }
  return { status: response.status, ...((await response.json()) as object) };
}

const codes = (answer: GraphQLAnswer) => answer.errors?.map((error) => error.extensions?.code);

const STORE_QUERY = 'query StoreName { store { id name } }';
const RETURNS_QUERY = 'query FirstReturns($first: Int!) { returns(first: $first) { nodes { id } } }';

describe('automatic persisted queries', () => {
  let first: TestServer;
  let second: TestServer;
  let secondDb: Database | undefined;
  let store: TestStore;

  beforeAll(async () => {
    first = await startTestServer();
    secondDb = onPostgres ? await openDatabase(first.db.url) : undefined;
    second = await startTestServer({}, {}, { db: secondDb ?? first.db });
    store = await createTestStore(first.db, { name: 'APQ store' });
  });
  afterAll(async () => {
    await second?.close();
    await secondDb?.close();
    await first?.close();
  });

  it('registers through one instance a hash another then serves, by GET with only the hash', async () => {
    const hash = sha256(RETURNS_QUERY);
    const persistedQuery = { version: 1, sha256Hash: hash };
    // The client first sends only the hash, which no instance knows yet.
    const unknown = await graphqlRequest(first, store.secret, { get: { extensions: { persistedQuery }, variables: { first: 2 } } });
    expect(unknown.status).toBe(200);
    expect(unknown.errors).toEqual([{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }]);
    // Then the document with its hash, which registers it.
    const registered = await graphqlRequest(first, store.secret, { post: { query: RETURNS_QUERY, variables: { first: 2 }, extensions: { persistedQuery } } });
    expect(registered).toEqual({ status: 200, data: { returns: { nodes: [] } } });
    // Any instance now runs it from the hash alone.
    for (const instance of [second, first]) {
      const byHash = await graphqlRequest(instance, store.secret, { get: { extensions: { persistedQuery }, variables: { first: 1 }, operationName: 'FirstReturns' } });
      expect(byHash).toEqual({ status: 200, data: { returns: { nodes: [] } } });
    }
    const stored = await first.db.sql.query<{ query: string }>(`SELECT "query" FROM "PersistedQuery" WHERE "hash" = $1`, [hash]);
    expect(stored).toEqual([{ query: RETURNS_QUERY }]);
  });

  it('refuses a mutation sent by hash over GET, as it refuses one sent as text', async () => {
    const mutation = 'mutation Revoke { apiClientRevoke(id: "apc_none") { id } }';
    const persistedQuery = { version: 1, sha256Hash: sha256(mutation) };
    await graphqlRequest(first, store.secret, { post: { query: mutation, extensions: { persistedQuery } } });
    const byHash = await graphqlRequest(first, store.secret, { get: { extensions: { persistedQuery } } });
    const asText = await graphqlRequest(first, store.secret, { get: { query: mutation } });
    expect(byHash.errors?.[0].message).toBe('Can only perform a mutation operation from a POST request.');
    expect(byHash).toEqual(asText);
  });

  it('refuses a document whose hash is not the one sent, and registers nothing', async () => {
    const wrong = sha256('query Other { store { id } }');
    const mismatched = await graphqlRequest(first, store.secret, { post: { query: STORE_QUERY, extensions: { persistedQuery: { version: 1, sha256Hash: wrong } } } });
    expect(mismatched.data).toBeUndefined();
    expect(codes(mismatched)).toEqual(['PERSISTED_QUERY_MISMATCH']);
    expect(await first.db.sql.query(`SELECT 1 FROM "PersistedQuery" WHERE "hash" = $1`, [wrong])).toEqual([]);
  });

  it('needs the API secret before anything is looked up or registered', async () => {
    const persistedQuery = { version: 1, sha256Hash: sha256(STORE_QUERY) };
    const refused = await graphqlRequest(first, undefined, { post: { query: STORE_QUERY, extensions: { persistedQuery } } });
    expect(refused.status).toBe(401);
    expect(codes(refused)).toEqual(['UNAUTHENTICATED']);
    expect(await first.db.sql.query(`SELECT 1 FROM "PersistedQuery" WHERE "hash" = $1`, [persistedQuery.sha256Hash])).toEqual([]);
  });

  it("forgets on every instance, at once, a document deleted because it quoted an erased person's e-mail", async () => {
    const upserted = await call(first, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: 'wilhelmina.tarrow@example.com' } });
    expect(upserted.status).toBe(201);
    const lookup = 'query Lookup { customer(email: "wilhelmina.tarrow@example.com") { id } }';
    const persistedQuery = { version: 1, sha256Hash: sha256(lookup) };
    const found = { customer: { id: (upserted.body as { id: string }).id } };
    const registered = await graphqlRequest(first, store.secret, { post: { query: lookup, extensions: { persistedQuery } } });
    expect(registered).toEqual({ status: 200, data: found });
    // Both instances now hold the document in memory.
    for (const instance of [first, second]) expect((await graphqlRequest(instance, store.secret, { get: { extensions: { persistedQuery } } })).data).toEqual(found);

    const erased = await graphqlRequest(first, store.secret, {
      post: { query: 'mutation { customerErase(input: { email: "wilhelmina.tarrow@example.com" }) { counts { persistedQueries } } }' },
    });
    expect(erased.data).toEqual({ customerErase: { counts: { persistedQueries: 1 } } });
    for (const instance of [second, first]) {
      for (const request of [{ get: { extensions: { persistedQuery } } }, { post: { extensions: { persistedQuery } } }]) {
        const byHash = await graphqlRequest(instance, store.secret, request);
        expect(byHash.data).toBeUndefined();
        expect(codes(byHash)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
      }
    }
  });

  it('keeps the shared store within its bounds: documents and bytes', async () => {
    const bounded = createPersistedQueryStore(first.db, { stored: 3, documentBytes: 200, cached: 2 });
    const documents = Array.from({ length: 6 }, (_, i) => `query Bounded${i} { store { id } }`);
    for (const document of documents) await bounded.set(sha256(document), document);
    const kept = await first.db.sql.query<{ hash: string }>(`SELECT "hash" FROM "PersistedQuery" WHERE "query" LIKE 'query Bounded%'`);
    expect(kept).toHaveLength(3);
    const big = `query Big { store { id } } ${'#'.repeat(300)}`;
    await bounded.set(sha256(big), big);
    expect(await first.db.sql.query(`SELECT 1 FROM "PersistedQuery" WHERE "hash" = $1`, [sha256(big)])).toEqual([]);
    // What is still stored is served, through another store (an instance with an empty cache).
    const other = createPersistedQueryStore(first.db);
    const served = await Promise.all(documents.map((document) => other.get(sha256(document))));
    expect(served.filter((document) => document !== null)).toHaveLength(3);
    expect(await other.get('not-a-sha256')).toBeNull();
  });
});

describe('trusted documents', () => {
  let dir: string;
  let server: TestServer;
  let store: TestStore;
  const manifestIds = { storeName: sha256(STORE_QUERY), returns: sha256(RETURNS_QUERY) };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trusted-documents-'));
    // As @apollo/generate-persisted-query-manifest writes it.
    const manifest = {
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [
        { id: manifestIds.storeName, name: 'StoreName', type: 'query', body: STORE_QUERY },
        { id: manifestIds.returns, name: 'FirstReturns', type: 'query', body: RETURNS_QUERY },
      ],
    };
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    server = await startTestServer({}, { GRAPHQL_TRUSTED_DOCUMENTS: path.join(dir, 'manifest.json') });
    store = await createTestStore(server.db, { name: 'Trusted store' });
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a document sent as text, even one of the manifest, and registers none', async () => {
    for (const query of ['{ store { id } }', STORE_QUERY]) {
      const refused = await graphqlRequest(server, store.secret, { post: { query } });
      expect(refused.status).toBe(400);
      expect(refused.data).toBeUndefined();
      expect(codes(refused)).toEqual(['PERSISTED_QUERY_ONLY']);
    }
    const registering = await graphqlRequest(server, store.secret, { post: { query: '{ store { name } }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ store { name } }') } } } });
    expect(codes(registering)).toEqual(['PERSISTED_QUERY_ONLY']);
  });

  it("runs a manifest's operation by its id, wherever the client library puts it", async () => {
    const expected = { status: 200, data: { store: { id: store.storeId, name: 'Trusted store' } } };
    const id = manifestIds.storeName;
    // Apollo Client and urql: the APQ extension, by POST and by GET.
    expect(await graphqlRequest(server, store.secret, { post: { extensions: { persistedQuery: { version: 1, sha256Hash: id } } } })).toEqual(expected);
    expect(await graphqlRequest(server, store.secret, { get: { extensions: { persistedQuery: { version: 1, sha256Hash: id } } } })).toEqual(expected);
    // GraphQL Codegen's client preset: documentId; Relay: doc_id.
    expect(await graphqlRequest(server, store.secret, { post: { documentId: id } })).toEqual(expected);
    expect(await graphqlRequest(server, store.secret, { get: { documentId: id } })).toEqual(expected);
    expect(await graphqlRequest(server, store.secret, { post: { doc_id: id } })).toEqual(expected);
    expect(await graphqlRequest(server, store.secret, { post: { documentId: manifestIds.returns, variables: { first: 1 } } })).toEqual({ status: 200, data: { returns: { nodes: [] } } });
  });

  it('refuses an id the manifest does not have, and a request with neither id nor document', async () => {
    const unknown = await graphqlRequest(server, store.secret, { post: { documentId: sha256('query Unknown { store { id } }') } });
    expect(unknown.status).toBe(400);
    expect(codes(unknown)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    const empty = await graphqlRequest(server, store.secret, { post: { variables: {} } });
    expect(empty.status).toBe(400);
    expect(codes(empty)).toEqual(['PERSISTED_QUERY_ID_REQUIRED']);
  });
});

describe('the trusted documents manifest', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifests-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const manifest = (name: string, content: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return file;
  };

  it('reads an object from id to document, as Relay and the GraphQL Codegen client preset write it', () => {
    const file = manifest('map.json', JSON.stringify({ a1: STORE_QUERY, b2: RETURNS_QUERY }));
    const read = readTrustedDocuments(file);
    expect(read.format).toBe('id map');
    expect([...read.documents]).toEqual([
      ['a1', STORE_QUERY],
      ['b2', RETURNS_QUERY],
    ]);
    expect(loadConfig({ GRAPHQL_TRUSTED_DOCUMENTS: file }).trustedDocuments?.documents.size).toBe(2);
    expect(loadConfig({}).trustedDocuments).toBeUndefined();
  });

  it.each([
    ['missing.json', undefined, /GRAPHQL_TRUSTED_DOCUMENTS: the manifest .*missing\.json cannot be read/],
    ['text.json', 'not json', /is not JSON/],
    ['array.json', '[]', /must be a JSON object/],
    ['empty.json', '{}', /holds no operation/],
    ['number.json', '{"a": 1}', /the value of "a" is not a document/],
    ['syntax.json', '{"a": "query {"}', /holds a document that does not parse under the id "a": Syntax Error/],
    ['apollo2.json', JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 2, operations: [] }), /version 2; version 1 is read/],
    ['apollo-op.json', JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'x' }] }), /operations\[0\] must be an object/],
  ])('stops the start with the reason: %s', (name, content, reason) => {
    const file = content === undefined ? path.join(dir, name) : manifest(name, content);
    let thrown: unknown;
    try {
      loadConfig({ GRAPHQL_TRUSTED_DOCUMENTS: file });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(reason);
  });
});

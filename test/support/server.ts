// A real service on 127.0.0.1 with its own database, and fixtures to make stores
// and API clients in it.
import type { AddressInfo } from 'node:net';
import { createApp, type App } from '../../src/process/server.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { Database } from '../../src/db/database.ts';
import { createApiClient, createStore, linkFulfillmentService } from '../../src/domain/stores.ts';
import { ReturnBulkActionWorker } from '../../src/domain/returnBulkActions.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import { createTestDatabase } from './db.ts';
import { expectReferenceResponse } from './reference.ts';

export interface TestServer {
  url: string;
  db: Database;
  app: App;
  config: Config;
  close(): Promise<void>;
}

/** `shared`: a second instance on another test server's database (which that server closes). */
export async function startTestServer(overrides: Partial<Config> = {}, env: NodeJS.ProcessEnv = {}, shared?: { db: Database }): Promise<TestServer> {
  const db = shared?.db ?? (await createTestDatabase({ searchTimeLimitMs: overrides.searchTimeLimitMs }));
  const config = { ...loadConfig({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...env }), ...overrides };
  const app = createApp({ db, config, logger: createLogger(config.logLevel) });
  // Under load a client can reuse a keep-alive connection just as the 5 s idle timeout
  // closes it (ECONNRESET); tests pause between requests to build fixtures, so idle
  // connections stay open longer than any such pause.
  app.server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    app,
    config,
    async close() {
      await app.shutdown(1_000);
      if (!shared) await db.close();
    },
  };
}

/**
 * Acts on the bulk actions on returns recorded through `server`, as the service's background work
 * does (src/background.ts); stopped when the server closes. Only the tests that start bulk actions
 * run it, so no other test sees its look for work among its statements. A test may stop and start
 * it again to see an action before it is acted on.
 */
export function actOnBulkActions(server: TestServer): ReturnBulkActionWorker {
  const worker = new ReturnBulkActionWorker({ db: server.db.prisma, instanceId: `test ${server.url}`, leaseMs: server.config.bulkActionLeaseMs, pollIntervalMs: 100 });
  worker.start();
  const close = server.close.bind(server);
  server.close = async () => {
    await worker.stop();
    await close();
  };
  return worker;
}

export interface TestStore {
  storeId: string;
  secret: string;
  clientId: string;
}

/** A store with an API client holding the given scopes (all by default). */
export async function createTestStore(
  db: Database,
  options: { kind?: 'MERCHANT' | 'FULFILLMENT_SERVICE'; scopes?: readonly string[]; name?: string } = {},
): Promise<TestStore> {
  const { id: storeId } = await createStore(db.prisma, { name: options.name ?? 'Test store', kind: options.kind });
  const client = await createApiClient(db.prisma, { storeId, name: 'test client', scopes: options.scopes ?? SCOPES });
  return { storeId, secret: client.secret, clientId: client.id };
}

export async function addApiClient(db: Database, storeId: string, scopes: readonly string[]): Promise<{ secret: string; clientId: string }> {
  const client = await createApiClient(db.prisma, { storeId, name: 'extra client', scopes });
  return { secret: client.secret, clientId: client.id };
}

export { linkFulfillmentService };

/**
 * fetch with the bearer secret and JSON body handled. Every /v2.2 answer of an operation the
 * reference document has is checked against that document (the REST door's contract); only a
 * test of the checker itself turns that off with `referenceCheck: false`.
 */
export async function call(
  server: Pick<TestServer, 'url'>,
  method: string,
  path: string,
  options: { secret?: string; body?: unknown; headers?: Record<string, string>; referenceCheck?: boolean } = {},
): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.secret) headers.authorization = `Bearer ${options.secret}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(server.url + path, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  if (options.referenceCheck !== false && path.startsWith('/v2.2/')) {
    expectReferenceResponse(method, path, { status: response.status, headers: response.headers, text });
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** POST a GraphQL operation to /v3/graphql. */
export async function graphql(
  server: Pick<TestServer, 'url'>,
  secret: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ status: number; data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] }> {
  const response = await call(server, 'POST', '/v3/graphql', { secret, body: { query, variables } });
  const body = response.body as { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] };
  return { status: response.status, ...body };
}

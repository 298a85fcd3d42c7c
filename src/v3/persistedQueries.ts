// Where /v3/graphql keeps the documents automatic persisted queries register (APQ, as Apollo
// Client, urql and Relay send them: the SHA-256 of the document instead of the document).
// The service scales out statelessly, so a hash registered through one instance must be
// served by every other: the documents live in the database (the one store every deployment
// has; Redis is optional), with a bounded in-process LRU in front, so a hot document is read
// (and marked used, a write) once per instance. A document never changes under its hash, but it
// may be deleted: a person's erasure deletes those quoting them (domain/privacy.ts), and every
// instance must stop running them at once, so a cached one is served only while its row exists
// (an index probe per request on the primary, which no lost notification can fool). Bounded in
// count and size: an API client registering documents endlessly evicts the least recently
// loaded ones, and a client whose hash was evicted just sends the document again
// (PersistedQueryNotFound, then the document with its hash), as the protocol provides.
import { GraphQLError } from 'graphql';
import { type GraphQLParams, type Plugin } from 'graphql-yoga';
import { useAPQ } from '@graphql-yoga/plugin-apq';
import { defaultExtractPersistedOperationId, usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Database } from '../db/database.ts';
import type { TrustedDocuments } from '../formats/trustedDocuments.ts';

export interface PersistedQueryStore {
  get(hash: string): Promise<string | null>;
  set(hash: string, query: string): Promise<void>;
}

export interface PersistedQueryLimits {
  /** Documents kept in the database. */
  stored: number;
  /** A longer document is executed but not kept (its client keeps sending it whole). */
  documentBytes: number;
  /** Documents each instance keeps in memory. */
  cached: number;
}

export const PERSISTED_QUERY_LIMITS: PersistedQueryLimits = { stored: 10_000, documentBytes: 64 * 1024, cached: 1_000 };

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The least recently used entry goes first once `max` are held (a Map keeps insertion order). */
function lruCache(max: number) {
  const entries = new Map<string, string>();
  return {
    delete(key: string): void {
      entries.delete(key);
    },
    get(key: string): string | undefined {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key: string, value: string): void {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > max) entries.delete(entries.keys().next().value!);
    },
  };
}

export function createPersistedQueryStore(db: Pick<Database, 'sql'>, limits: PersistedQueryLimits = PERSISTED_QUERY_LIMITS): PersistedQueryStore {
  const cache = lruCache(limits.cached);
  return {
    async get(hash) {
      // Anything but a SHA-256 is unknown without asking the database.
      if (!SHA256_HEX.test(hash)) return null;
      const cached = cache.get(hash);
      if (cached !== undefined) {
        if ((await db.sql.query(`SELECT 1 FROM "PersistedQuery" WHERE "hash" = $1`, [hash])).length > 0) return cached;
        cache.delete(hash);
        return null;
      }
      // Loading marks the document used, so the ones instances still load are kept longest.
      const [row] = await db.sql.query<{ query: string }>(`UPDATE "PersistedQuery" SET "usedAt" = now() WHERE "hash" = $1 RETURNING "query"`, [hash]);
      if (!row) return null;
      cache.set(hash, row.query);
      return row.query;
    },
    // Called once the APQ plugin has checked that `hash` is the document's SHA-256, for every
    // request that sends both; one this instance holds was in the database (if deleted since, the
    // next request by hash alone finds it gone, and the client's next registration stores it again).
    async set(hash, query) {
      if (cache.get(hash) !== undefined) return;
      if (Buffer.byteLength(query) <= limits.documentBytes) {
        const inserted = await db.sql.query(`INSERT INTO "PersistedQuery" ("hash", "query") VALUES ($1, $2) ON CONFLICT ("hash") DO NOTHING RETURNING "hash"`, [hash, query]);
        if (inserted.length > 0) {
          await db.sql.query(`DELETE FROM "PersistedQuery" WHERE "hash" IN (SELECT "hash" FROM "PersistedQuery" ORDER BY "usedAt" DESC, "hash" OFFSET $1)`, [limits.stored]);
        }
      }
      cache.set(hash, query);
    },
  };
}

/** Where clients put a trusted document's id: Apollo Client and urql in the APQ extension, GraphQL Codegen's client preset in `documentId`, Relay's examples in `doc_id`. */
const ID_PARAMETERS = ['documentId', 'doc_id'] as const;

function trustedDocumentId(params: GraphQLParams & Partial<Record<(typeof ID_PARAMETERS)[number], unknown>>, request: Request): string | null {
  const fromExtension = defaultExtractPersistedOperationId(params, request, {});
  if (fromExtension !== null) return fromExtension;
  for (const name of ID_PARAMETERS) if (typeof params[name] === 'string') return params[name];
  // yoga reads only query, variables, operationName and extensions from a GET's query string.
  const search = new URL(request.url).searchParams;
  for (const name of ID_PARAMETERS) if (search.has(name)) return search.get(name);
  return null;
}

/** The codes of the persisted-operation plugins' refusals, the APQ plugin's and the trusted documents' (below). */
const REFUSAL_CODES = new Set(['PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_MISMATCH', 'PERSISTED_QUERY_ONLY', 'PERSISTED_QUERY_ID_REQUIRED']);

/** A refusal the client acts on by its code (send the document, send an id): answered as the plugin made it, with its HTTP status. */
export function isPersistedOperationRefusal(error: unknown): error is GraphQLError {
  return error instanceof GraphQLError && REFUSAL_CODES.has(String(error.extensions?.code));
}

const refusal = (message: string, code: string) => ({ message, extensions: { code, http: { status: 400 } } });

/**
 * The plugins (and the request parameters they read) that give /v3/graphql persisted
 * operations. By default automatic persisted queries (graphql-yoga's APQ plugin) on the shared
 * store: any authenticated client may register a document under its hash and then send only
 * the hash, by GET for queries so the answer has a validator. With a trusted-documents
 * manifest, instead, only the manifest's operations run (graphql-yoga's persisted-operations
 * plugin); a document sent as text is refused, and nothing can be registered.
 */
export function persistedOperations(db: Pick<Database, 'sql'>, trusted: TrustedDocuments | undefined): { plugins: Plugin[]; extraParamNames: string[] } {
  if (!trusted) {
    // PersistedQueryNotFound is answered 200 with the error: it is the protocol's next step, not a failed
    // request, and a 404 to a GET is an answer caches may keep.
    return { plugins: [useAPQ({ store: createPersistedQueryStore(db), responseConfig: { forceStatusCodeOk: true } })], extraParamNames: [] };
  }
  const idParameters = `extensions.persistedQuery.sha256Hash, ${ID_PARAMETERS.join(' or ')}`;
  const plugin = usePersistedOperations({
    getPersistedOperation: (id) => trusted.documents.get(id) ?? null,
    extractPersistedOperationId: trustedDocumentId,
    allowArbitraryOperations: false,
    customErrors: {
      persistedQueryOnly: refusal(`this server runs only the operations of its trusted documents manifest: send the operation's id (${idParameters}), not its text`, 'PERSISTED_QUERY_ONLY'),
      keyNotFound: refusal(`no operation id in the request: send the id of a trusted document (${idParameters})`, 'PERSISTED_QUERY_ID_REQUIRED'),
      notFound: refusal('PersistedQueryNotFound: no operation with that id in the trusted documents manifest', 'PERSISTED_QUERY_NOT_FOUND'),
    },
  });
  return { plugins: [plugin], extraParamNames: [...ID_PARAMETERS] };
}

// The manifest of trusted documents (GRAPHQL_TRUSTED_DOCUMENTS): the operations the
// frontends' build produced, the only ones /v3/graphql then accepts, each by its id.
// Two formats are read, the ones client build tools write:
// - a JSON object from id to document text: Relay's persisted queries (`relay-compiler`'s
//   `persistConfig` with a local file) and GraphQL Codegen's client preset
//   (`persisted-documents.json`);
// - Apollo's persisted query manifest (`@apollo/generate-persisted-query-manifest`):
//   `{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{"id", "name", "type", "body"}]}`.
// Read and checked once at start-up: a manifest that cannot be read, is of neither format,
// is empty or holds a document that does not parse stops the service with the reason.
import fs from 'node:fs';
import { parse } from 'graphql';

export interface TrustedDocuments {
  /** Where the manifest was read from. */
  path: string;
  format: 'id map' | 'apollo-persisted-query-manifest';
  /** Operation id -> document text. */
  documents: Map<string, string>;
}

const APOLLO_FORMAT = 'apollo-persisted-query-manifest';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function apolloOperations(manifest: Record<string, unknown>): [string, string][] {
  if (manifest.version !== 1) throw new Error(`is an Apollo persisted query manifest of version ${JSON.stringify(manifest.version)}; version 1 is read`);
  if (!Array.isArray(manifest.operations)) throw new Error('is an Apollo persisted query manifest without an "operations" array');
  return manifest.operations.map((operation: unknown, index) => {
    if (!isObject(operation) || typeof operation.id !== 'string' || typeof operation.body !== 'string') {
      throw new Error(`operations[${index}] must be an object with a string "id" and a string "body"`);
    }
    return [operation.id, operation.body];
  });
}

function idMapOperations(manifest: Record<string, unknown>): [string, string][] {
  return Object.entries(manifest).map(([id, body]) => {
    if (typeof body !== 'string') throw new Error(`the value of "${id}" is not a document (a string); expected an object from operation id to document text, or an Apollo persisted query manifest`);
    return [id, body];
  });
}

/** The manifest at `path`; throws an Error saying what is wrong with it. */
export function readTrustedDocuments(path: string): TrustedDocuments {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot be read: ${(error as Error).message}`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new Error(`is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(manifest)) throw new Error('must be a JSON object: from operation id to document text, or an Apollo persisted query manifest');
  const format = manifest.format === APOLLO_FORMAT ? APOLLO_FORMAT : 'id map';
  const operations = format === APOLLO_FORMAT ? apolloOperations(manifest) : idMapOperations(manifest);
  if (operations.length === 0) throw new Error('holds no operation, so every request would be refused');
  const documents = new Map<string, string>();
  for (const [id, body] of operations) {
    if (id === '') throw new Error('holds an operation with an empty id');
    if (documents.has(id) && documents.get(id) !== body) throw new Error(`holds two different documents under the id "${id}"`);
    try {
      parse(body);
    } catch (error) {
      throw new Error(`holds a document that does not parse under the id "${id}": ${(error as Error).message}`);
    }
    documents.set(id, body);
  }
  return { path, format, documents };
}

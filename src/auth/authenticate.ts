// Bearer secret -> API client -> store and scopes. Runs once per request; each
// door turns an AuthFailure into its own error format.
//
// An Authenticator keeps what it looked up in process memory, so a request of a known
// client costs no SQL. A revocation reaches every instance at once: revoking NOTIFYs
// API_CLIENT_CHANNEL in its transaction, and each authenticator LISTENs and forgets the
// client (the revoking process also tells its own at once). While the listening connection is
// down the cache is not used, since a notification could be missed.
import type { Database } from '../db/database.ts';
import { databaseFailure } from '../db/failures.ts';
import type { PrismaClient, StoreKind } from '../generated/prisma/client.ts';
import { isScope, type Scope } from './scopes.ts';
import { hashSecret, sameHash } from './secrets.ts';

export interface AuthContext {
  store: { id: string; name: string; kind: StoreKind };
  client: { id: string; name: string };
  scopes: ReadonlySet<Scope>;
  /**
   * Set when a merchant user signed in to the dashboard (then `client` names the
   * user). Only such a session may manage API clients.
   */
  merchantUser?: { id: string; email: string };
  /** Set on the shopper portal: the shopper's browser session (shopper.ts), which then acts instead of `client`. */
  shopper?: { session: string };
}

export interface AuthFailure {
  status: 401 | 403;
  message: string;
}

export function isAuthFailure(value: AuthContext | AuthFailure): value is AuthFailure {
  return 'status' in value;
}

/** The caller a door's authentication found, or undefined where it refused (Door.caller). */
export function callerOf(value: AuthContext | AuthFailure): AuthContext | undefined {
  return isAuthFailure(value) ? undefined : value;
}

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]{1,512})\s*$/;

/** Extracts the secret from `Authorization: Bearer <secret>` (or a bare secret when allowed). */
export function readSecret(header: string | undefined, { allowBare = false } = {}): string | AuthFailure {
  if (header === undefined || header.trim() === '') {
    return { status: 401, message: 'missing credentials: send Authorization: Bearer <API secret>' };
  }
  const match = BEARER.exec(header);
  if (match) return match[1];
  if (allowBare && /^[A-Za-z0-9._~+/=-]{1,512}$/.test(header.trim())) return header.trim();
  return { status: 401, message: 'malformed Authorization header: expected "Bearer <API secret>"' };
}

/** One statement: the client with its store. Unknown secrets name no client (and are never cached). */
async function lookUp(prisma: PrismaClient, hash: string): Promise<{ result: AuthContext | AuthFailure; clientId?: string }> {
  const client = await prisma.apiClient.findUnique({
    where: { secretHash: hash },
    select: { id: true, name: true, scopes: true, revokedAt: true, secretHash: true, store: { select: { id: true, name: true, kind: true } } },
  });
  if (!client || !sameHash(client.secretHash, hash)) return { result: { status: 401, message: 'unknown API secret' } };
  if (client.revokedAt) return { result: { status: 401, message: 'this API client has been revoked' }, clientId: client.id };
  return {
    result: { store: client.store, client: { id: client.id, name: client.name }, scopes: new Set(client.scopes.filter(isScope)) },
    clientId: client.id,
  };
}

/** Looks the secret up without a cache (the CLI and start-up checks). */
export async function authenticate(prisma: PrismaClient, secret: string | AuthFailure): Promise<AuthContext | AuthFailure> {
  if (typeof secret !== 'string') return secret;
  return (await lookUp(prisma, hashSecret(secret))).result;
}

export const API_CLIENT_CHANNEL = 'api_client_changes';

/** Entries are also dropped after this long, so a store renamed elsewhere shows its new name soon. */
const CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export interface Authenticator {
  authenticate(secret: string | AuthFailure): Promise<AuthContext | AuthFailure>;
  close(): Promise<void>;
}

interface CacheEntry {
  clientId: string;
  result: AuthContext | AuthFailure;
  expires: number;
}

const inProcess = new Set<(clientId: string) => void>();

/** Tells every authenticator of this process that the client changed (it also learns so by NOTIFY). */
export function forgetApiClient(clientId: string): void {
  for (const forget of inProcess) forget(clientId);
}

export function createAuthenticator(db: Database): Authenticator {
  const cache = new Map<string, CacheEntry>();
  let listening = false;
  // Bumped by every invalidation: a lookup that overlapped one does not cache its answer.
  let generation = 0;
  const forget = (clientId: string) => {
    generation++;
    for (const [hash, entry] of cache) if (entry.clientId === clientId) cache.delete(hash);
  };
  inProcess.add(forget);
  const unsubscribe = db.listen(API_CLIENT_CHANNEL, {
    onNotify: forget,
    onState(state) {
      generation++;
      cache.clear();
      listening = state;
    },
  });

  return {
    async authenticate(secret) {
      if (typeof secret !== 'string') return secret;
      const hash = hashSecret(secret);
      const now = Date.now();
      const hit = listening ? cache.get(hash) : undefined;
      if (hit && hit.expires > now) return hit.result;
      const started = generation;
      const { result, clientId } = await lookUp(db.prisma, hash).catch((error: unknown) => {
        // No primary (a failover): a replica vouches for the client, so reads go on being served; no revocation can commit meanwhile.
        if (!db.replicas || databaseFailure(error) !== 'unavailable') throw error;
        return lookUp(db.reads as unknown as PrismaClient, hash);
      });
      if (clientId && listening && generation === started) {
        if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
        cache.set(hash, { clientId, result, expires: now + CACHE_TTL_MS });
      }
      return result;
    },
    async close() {
      inProcess.delete(forget);
      await (await unsubscribe)();
    },
  };
}

/** A secret of store A used on /stores/B/... is refused. */
export function authorizeStore(auth: AuthContext, storeId: string): AuthFailure | undefined {
  if (auth.store.id !== storeId) return { status: 403, message: 'this API secret does not belong to the store in the path' };
  return undefined;
}

export function authorizeScopes(auth: AuthContext, required: readonly Scope[]): AuthFailure | undefined {
  const missing = required.filter((scope) => !auth.scopes.has(scope));
  if (missing.length > 0) return { status: 403, message: `missing scope: ${missing.join(', ')}` };
  return undefined;
}

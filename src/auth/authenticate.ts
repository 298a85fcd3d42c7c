// Bearer secret -> API client -> store and scopes. Runs once per request; each
// door turns an AuthFailure into its own error format.
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
}

export interface AuthFailure {
  status: 401 | 403;
  message: string;
}

export function isAuthFailure(value: AuthContext | AuthFailure): value is AuthFailure {
  return 'status' in value;
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

export async function authenticate(prisma: PrismaClient, secret: string | AuthFailure): Promise<AuthContext | AuthFailure> {
  if (typeof secret !== 'string') return secret;
  const hash = hashSecret(secret);
  const client = await prisma.apiClient.findUnique({
    where: { secretHash: hash },
    select: { id: true, name: true, scopes: true, revokedAt: true, secretHash: true, store: { select: { id: true, name: true, kind: true } } },
  });
  if (!client || !sameHash(client.secretHash, hash)) return { status: 401, message: 'unknown API secret' };
  if (client.revokedAt) return { status: 401, message: 'this API client has been revoked' };
  return {
    store: client.store,
    client: { id: client.id, name: client.name },
    scopes: new Set(client.scopes.filter(isScope)),
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

import type { Database } from '../db/database.ts';
import type { Reads } from '../db/reads/reader.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AuthContext } from '../auth/authenticate.ts';
import type { Logger } from '../observability/logger.ts';
import type { LiveAccess } from '../live/feed.ts';
import type { Scope } from '../auth/scopes.ts';
import { trace } from '@opentelemetry/api';
import { ATTR_STORE_ID } from '../observability/telemetry.ts';
import { identifyActor, type Actor } from '../observability/requestScope.ts';

export type Door = 'v3' | 'rest' | 'compat' | 'web' | 'internal';

/** Largest page a connection accepts, per door (v3 100; REST page-size goes to 500). */
export const MAX_PAGE_SIZE: Record<Door, number> = { v3: 100, rest: 500, compat: 750, web: 100, internal: 1000 };

export interface GraphQLContext {
  db: Database;
  /** Writes, through the domain's services. */
  prisma: PrismaClient;
  /** Every read a resolver makes: one statement, plain JSON (db/reads). */
  reads: Reads;
  /** Null only for unauthenticated internal work; every door authenticates first. */
  auth: AuthContext | null;
  door: Door;
  maxPageSize: number;
  logger: Logger;
  requestId: string;
  /** Request-scoped memo for DataLoaders and other per-request caches. */
  cache: Map<unknown, unknown>;
  /** Present where subscriptions are served (a streamed request): the feed and what to do with a reader left behind. */
  live?: LiveAccess;
}

export function createContext(input: {
  db: Database;
  auth: AuthContext | null;
  door: Door;
  logger: Logger;
  requestId: string;
  live?: LiveAccess;
}): GraphQLContext {
  // Every door hands its resolved caller over here, so this is where the request's span learns the store.
  if (input.auth) {
    trace.getActiveSpan()?.setAttribute(ATTR_STORE_ID, input.auth.store.id);
    identifyActor(actorOf(input.auth), input.auth.store.id);
  }
  return { ...input, prisma: input.db.prisma, reads: input.db.reads, maxPageSize: MAX_PAGE_SIZE[input.door], cache: new Map() };
}

function actorOf(auth: AuthContext): Actor {
  if (auth.merchantUser) return { kind: 'merchant_user', id: auth.merchantUser.id, email: auth.merchantUser.email };
  if (auth.shopper) return { kind: 'shopper', session: auth.shopper.session };
  return { kind: 'api_client', id: auth.client.id, name: auth.client.name };
}

/** A per-request value (typically a DataLoader) created on first use. */
export function perRequest<T>(ctx: GraphQLContext, key: object, create: () => T): T {
  let value = ctx.cache.get(key) as T | undefined;
  if (value === undefined) {
    value = create();
    ctx.cache.set(key, value);
  }
  return value;
}

/** The authenticated store; resolvers run only behind a door that authenticated. */
export function storeIdOf(ctx: GraphQLContext): string {
  if (!ctx.auth) throw new Error('no authenticated store in context');
  return ctx.auth.store.id;
}

/** True when the caller holds at least one of the scopes (type-level rules that several audiences share). */
export function hasAnyScope(ctx: GraphQLContext, scopes: readonly Scope[]): boolean {
  return scopes.some((scope) => ctx.auth?.scopes.has(scope) ?? false);
}

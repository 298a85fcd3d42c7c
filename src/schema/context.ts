import type { Database } from '../db/database.ts';
import type { Reads } from '../db/reads/reader.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AuthContext } from '../auth/authenticate.ts';
import type { Logger } from '../observability/logger.ts';
import type { LiveAccess } from '../live/feed.ts';
import type { Scope } from '../auth/scopes.ts';
import type { PortalLinks } from '../auth/shopper.ts';
import type { AddressPolicy } from '../domain/webhooks.ts';
import type { execute } from 'graphql';
import type { CursorSigner } from './cursors.ts';
import type { ReadPlanner } from './readPlanner.ts';
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
  services: ContextServices;
}

/** What every operation of the process shares, made once from the configuration (process/contextServices.ts). */
export interface ContextServices {
  /** Signs every connection's cursors (CURSOR_SECRET). */
  cursors: CursorSigner;
  /** Signs the shopper portal's order links. */
  portalLinks: PortalLinks;
  /** How an operation run in-process executes: planned where the planner can (planned.ts), else graphql-js's; traced when tracing is on (telemetry.ts). */
  execute: typeof execute;
  /** The plans of the documents every door runs, made once per document (planned.ts); the v3 door runs its operations through it too. */
  planner: ReadPlanner;
  /** The rules a webhook subscription's address is checked with (WEBHOOKS_ALLOW_LOOPBACK). */
  webhookAddressPolicy: AddressPolicy;
}

/** What differs between two requests' contexts. */
export interface ContextRequest {
  auth: AuthContext | null;
  door: Door;
  requestId: string;
  live?: LiveAccess;
}

/** Makes each request's context; doors and background work get one from the composition root. */
export type NewContext = (request: ContextRequest) => GraphQLContext;

export function contextFactory(shared: { db: Database; logger: Logger; services: ContextServices }): NewContext {
  const { db, logger, services } = shared;
  return (request) => {
    // Every door hands its resolved caller over here, so this is where the request's span learns the store.
    if (request.auth) {
      trace.getActiveSpan()?.setAttribute(ATTR_STORE_ID, request.auth.store.id);
      identifyActor(actorOf(request.auth), request.auth.store.id);
    }
    return { ...request, db, logger, services, prisma: db.prisma, reads: db.reads, maxPageSize: MAX_PAGE_SIZE[request.door], cache: new Map() };
  };
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

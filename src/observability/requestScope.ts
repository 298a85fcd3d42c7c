// Who is acting, for which request and through which door, carried along the asynchronous
// path of one request (or one background job) without threading it through every call.
// The server opens a scope per request; the door fills in the actor once it has
// authenticated (schema/context.ts); background work opens one naming its job. Whatever
// needs to know who did something (the audit trail, the idempotency layer, replica routing)
// reads it here, so no door has to pass it on.
import { AsyncLocalStorage } from 'node:async_hooks';

export type Actor =
  | { kind: 'api_client'; id: string; name: string }
  | { kind: 'merchant_user'; id: string; email: string }
  | { kind: 'shopper'; session: string }
  | { kind: 'job'; name: string };

export interface RequestScope {
  /** The request's id, the same one its log lines and trace carry; absent for background work. */
  requestId?: string;
  /** The door the request came through (`v3`, `rest`, `sofa`, `compat`, `web`), or `job`. */
  door: string;
  /** Set once known: when the door has authenticated the caller, or from the start for a job. */
  actor?: Actor;
  /** The store the actor acts for, set with the actor (a job works across stores: none). */
  storeId?: string;
  /** The root mutation field being executed (`returnProcess`), set as each one starts. */
  operation?: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function inRequestScope<T>(scope: RequestScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** The scope of the request or job this code runs for; undefined outside any (tests, start-up). */
export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** Records who is acting in the current scope, and for which store, unless it already names someone (a job stays the actor of what it does). */
export function identifyActor(actor: Actor, storeId?: string): void {
  const scope = storage.getStore();
  if (scope && !scope.actor) {
    scope.actor = actor;
    scope.storeId = storeId;
  }
}

/** Names the operation now being executed in the current scope; mutations run one after another, so each names its own writes. */
export function nameOperation(operation: string): void {
  const scope = storage.getStore();
  if (scope) scope.operation = operation;
}

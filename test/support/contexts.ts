// What tests that run operations or webhook work outside a test server hand in where the
// composition root would: the process's shared services and a context factory over a database.
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { systemLookup, type AddressPolicy } from '../../src/domain/webhooks.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { contextServices } from '../../src/process/contextServices.ts';
import { contextFactory, type ContextServices, type NewContext } from '../../src/schema/context.ts';

/** The address rules of a service run with WEBHOOKS_ALLOW_LOOPBACK=true: what tests' receivers on 127.0.0.1 need. */
export const LOOPBACK_ALLOWED: AddressPolicy = { allowLoopback: true, lookup: systemLookup };

export function testServices(overrides: Partial<ContextServices> = {}): ContextServices {
  return { ...contextServices({ ...loadConfig({}), webhooksAllowLoopback: true }), ...overrides };
}

export function testContexts(db: Database, services: ContextServices = testServices()): NewContext {
  return contextFactory({ db, logger: createLogger('silent'), services });
}

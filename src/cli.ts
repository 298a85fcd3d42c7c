// Admin commands. Each prints one JSON line on success; failures print
// {"error": "..."} on stderr and exit 1. Uses the same DATABASE_URL rule as the
// server, and talks to a running server's embedded database through its socket.
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { applyMigrations } from './db/migrate.ts';
import { isDomainError } from './domain/errors.ts';
import { createApiClient, createStore, linkFulfillmentService, revokeApiClient } from './domain/stores.ts';
import { seedDemo } from './domain/demo.ts';
import { createMerchantUser } from './auth/merchantUsers.ts';
import type { StoreKind } from './generated/prisma/client.ts';

const USAGE = `usage:
  cli store create --name NAME [--kind MERCHANT|FULFILLMENT_SERVICE]
  cli store link --merchant str_A --fulfillment-service str_B
  cli api-client create --store str_A --name NAME --scopes a,b,c
  cli api-client revoke --id apc_...
  cli user create --store str_A --email E   (password read from stdin)
  cli seed
  cli migrate`;

class UsageError extends Error {}

/** The password is the first line of stdin, so it never shows in the process list or shell history. */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  if (!password) throw new UsageError('the password must be given on stdin');
  return password;
}

function need(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required\n${USAGE}`);
  return value;
}

async function run(db: Database, argv: string[]): Promise<unknown> {
  const [group, action, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      kind: { type: 'string' },
      merchant: { type: 'string' },
      'fulfillment-service': { type: 'string' },
      store: { type: 'string' },
      scopes: { type: 'string' },
      id: { type: 'string' },
      email: { type: 'string' },
    },
    strict: true,
  });
  const command = action ? `${group} ${action}` : group;
  switch (command) {
    case 'store create':
      return createStore(db.prisma, { name: need(values, 'name'), kind: (values.kind ?? 'MERCHANT') as StoreKind });
    case 'store link':
      await linkFulfillmentService(db.prisma, need(values, 'merchant'), need(values, 'fulfillment-service'));
      return { ok: true };
    case 'api-client create':
      return createApiClient(db.prisma, {
        storeId: need(values, 'store'),
        name: need(values, 'name'),
        scopes: need(values, 'scopes').split(',').map((s) => s.trim()).filter(Boolean),
      });
    case 'api-client revoke':
      await revokeApiClient(db.prisma, need(values, 'id'));
      return { ok: true };
    case 'user create':
      return createMerchantUser(db.prisma, { storeId: need(values, 'store'), email: need(values, 'email'), password: await readPassword() });
    case 'seed':
      return seedDemo(db.prisma);
    case 'migrate':
      return { applied: await applyMigrations(db) };
    default:
      throw new UsageError(USAGE);
  }
}

async function main(): Promise<number> {
  const config = loadConfig();
  let db: Database | undefined;
  try {
    db = await openDatabase(config.databaseUrl, { poolSize: 2 });
    if (config.migrateOnStart) await applyMigrations(db);
    const result = await run(db, process.argv.slice(2));
    process.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  } catch (error) {
    const message = error instanceof UsageError || isDomainError(error) || error instanceof TypeError ? error.message : String((error as Error).stack ?? error);
    process.stderr.write(JSON.stringify({ error: message }) + '\n');
    return 1;
  } finally {
    await db?.close();
  }
}

process.exitCode = await main();

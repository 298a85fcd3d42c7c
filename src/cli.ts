// Admin commands. Each prints one JSON line on success; failures print
// {"error": "..."} on stderr and exit 1, except usage mistakes, which print the usage
// as plain text on stderr (exit 1); `--help` prints it on stdout (exit 0) without
// opening the database. Uses the same DATABASE_URL rule as the server, and talks to a
// running server's embedded database through its socket. `db export` and `db import` open
// their database themselves: neither migrates it on the way (see src/db/transfer.ts).
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { DatabaseUrlError, openDatabase } from './db/client.ts';
import type { Database } from './db/database.ts';
import { applyMigrations } from './db/migrate.ts';
import { exportDump, importDump, TransferError } from './db/transfer.ts';
import { isDomainError } from './domain/errors.ts';
import { createApiClient, createStore, linkFulfillmentService, revokeApiClient } from './domain/stores.ts';
import { seedDemo } from './domain/demo.ts';
import { inRequestScope } from './observability/requestScope.ts';
import { keepDemoCredentials } from './process/demoCredentials.ts';
import { createMerchantUser } from './domain/merchantUsers.ts';
import type { StoreKind } from './generated/prisma/client.ts';

const USAGE = `usage: npm run -s cli -- <command>

  store create --name NAME [--kind MERCHANT|FULFILLMENT_SERVICE]
  store link --merchant str_A --fulfillment-service str_B
  api-client create --store str_A --name NAME --scopes a,b,c
  api-client revoke --id apc_...
  user create --store str_A --email E   a dashboard user; the password is read from stdin
  seed        demo data and an all-scope API client (once per database; again: no change)
  migrate     apply pending migrations
  db export --to FILE    every row of the database into FILE (a SQL file psql can run too);
                         FILE must not exist; a running server's embedded database is read through its socket
  db import --from FILE  FILE into the PostgreSQL database, which must hold no rows (migrated first if needed)
  help        this text

Each command prints one JSON line. DATABASE_URL chooses the database, as for the server:
the source of db export (pglite:./data/pglite when unset), the target of db import.
`;

const HELP = new Set(['help', '--help', '-h']);

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
  if (!value) throw new UsageError(`--${name} is required`);
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
    case 'seed': {
      const seed = await seedDemo(db.prisma);
      if (seed.seeded) keepDemoCredentials(db.url, { storeId: seed.storeId, secret: seed.secret, login: seed.login });
      return seed;
    }
    case 'migrate':
      return { applied: await applyMigrations(db) };
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
}

/** The source or target is DATABASE_URL's database, as for every other command. */
async function transfer(databaseUrl: string, argv: string[]): Promise<unknown> {
  const [, action, ...rest] = argv;
  const option = action === 'export' ? 'to' : 'from';
  const { values } = parseArgs({ args: rest, options: { [option]: { type: 'string' } }, strict: true });
  switch (action) {
    case 'export':
      return exportDump(databaseUrl, need(values, 'to'));
    case 'import':
      return importDump(databaseUrl, need(values, 'from'));
    default:
      throw new UsageError(action ? `unknown command "db ${action}"` : 'db needs export or import');
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.some((arg) => HELP.has(arg))) {
    process.stdout.write(USAGE);
    return 0;
  }
  let db: Database | undefined;
  try {
    const config = loadConfig();
    if (argv[0] === 'db') {
      process.stdout.write(JSON.stringify(await transfer(config.databaseUrl, argv)) + '\n');
      return 0;
    }
    db = await openDatabase(config.databaseUrl, { poolSize: 2 });
    if (config.migrateOnStart) await applyMigrations(db);
    // The audit trail names what a command changes as the `cli` job's.
    const opened = db;
    const result = await inRequestScope({ door: 'job', actor: { kind: 'job', name: 'cli' } }, () => run(opened, argv));
    process.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`error: ${error.message}\n\n${USAGE}`);
      return 1;
    }
    const expected = error instanceof ConfigError || error instanceof DatabaseUrlError || error instanceof TransferError;
    const message = expected || isDomainError(error) || error instanceof TypeError ? (error as Error).message : String((error as Error).stack ?? error);
    process.stderr.write(JSON.stringify({ error: message }) + '\n');
    return 1;
  } finally {
    await db?.close();
  }
}

process.exitCode = await main();

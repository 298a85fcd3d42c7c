// The real Prisma CLI on our wasm schema engine stand-in (tools/prisma-engine), in
// throwaway projects with a toy schema: on PGlite, and also on a fresh PostgreSQL
// database when TEST_DATABASE_URL is set. The CLI is slow to start, so the tests run
// concurrently, each in its own project directory.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';

const PRISMA = path.resolve('node_modules/prisma/build/index.js');
const ENGINE = path.resolve('tools/prisma-engine/schema-engine.mjs');
const TIMEOUT = 120_000;

const SCHEMA = `datasource db {
  provider = "postgresql"
}

enum OrderStatus {
  OPEN
  PAID
}

model Customer {
  id     Int     @id @default(autoincrement())
  email  String  @unique
  orders Order[]
}

model Order {
  id         Int         @id @default(autoincrement())
  status     OrderStatus @default(OPEN)
  total      Decimal     @db.Decimal(12, 2)
  customerId Int
  customer   Customer    @relation(fields: [customerId], references: [id])
  lines      OrderLine[]
}

model OrderLine {
  id       Int    @id @default(autoincrement())
  orderId  Int
  order    Order  @relation(fields: [orderId], references: [id], onDelete: Cascade)
  sku      String
  quantity Int
}
`;

let root: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'prisma-engine-test-'));
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A project directory with the toy schema and a prisma.config.ts reading DATABASE_URL. */
function project(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'schema.prisma'), SCHEMA);
  // No imports: the throwaway directory has no node_modules.
  fs.writeFileSync(
    path.join(dir, 'prisma.config.ts'),
    `export default {
  schema: 'schema.prisma',
  migrations: { path: 'migrations' },
  datasource: { url: process.env.DATABASE_URL },
};
`,
  );
  return dir;
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `prisma <args>` in `dir` against `databaseUrl`. */
function prisma(dir: string, databaseUrl: string, args: string[]): Promise<Result> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: ENGINE,
    DATABASE_URL: databaseUrl,
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  };
  delete env.SHADOW_DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, [PRISMA, ...args], { cwd: dir, env, timeout: TIMEOUT }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

function exitCode(result: Result, expected: number): string {
  if (result.code !== expected) {
    throw new Error(`prisma exited with ${result.code}, expected ${expected}:\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/** Writes `sql` as the only migration of the project in `dir`. */
function writeMigration(dir: string, sql: string) {
  fs.mkdirSync(path.join(dir, 'migrations', '20250101000000_init'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'migrations', '20250101000000_init', 'migration.sql'), sql);
  fs.writeFileSync(path.join(dir, 'migrations', 'migration_lock.toml'), 'provider = "postgresql"\n');
}

// `migrate diff --from-empty --to-schema --script`, shared by the tests that need a migration.
let initialSql: Promise<string> | undefined;
function diffFromEmpty(): Promise<string> {
  initialSql ??= (async () => {
    const dir = project('from-empty');
    const url = `pglite:${path.join(dir, 'db')}`;
    const sql = exitCode(await prisma(dir, url, ['migrate', 'diff', '--from-empty', '--to-schema', 'schema.prisma', '--script']), 0);
    // A schema-to-schema diff never opens the configured database.
    if (fs.existsSync(path.join(dir, 'db'))) throw new Error('migrate diff created the PGlite directory');
    return sql;
  })();
  return initialSql;
}

describe.concurrent('prisma CLI on the wasm schema engine', () => {
  it('migrate diff --from-empty --to-schema --script prints the SQL', { timeout: TIMEOUT }, async ({ expect }) => {
    const sql = await diffFromEmpty();
    expect(sql).toContain(`CREATE TYPE "OrderStatus" AS ENUM ('OPEN', 'PAID');`);
    expect(sql).toContain('CREATE TABLE "OrderLine"');
    expect(sql).toContain('"total" DECIMAL(12,2) NOT NULL');
    expect(sql).toMatch(/ADD CONSTRAINT "Order_customerId_fkey" FOREIGN KEY \("customerId"\) REFERENCES "Customer"\("id"\)/);
  });

  it('migrate diff --from-migrations --exit-code: 0 in sync, 2 once the schema changed (no database server)', { timeout: TIMEOUT }, async ({ expect }) => {
    const dir = project('from-migrations');
    writeMigration(dir, await diffFromEmpty());
    const diff = (schema: string) => prisma(dir, 'pglite:memory:', ['migrate', 'diff', '--from-migrations', 'migrations', '--to-schema', schema, '--exit-code']);

    expect(exitCode(await diff('schema.prisma'), 0)).toContain('No difference detected');

    fs.writeFileSync(path.join(dir, 'changed.prisma'), SCHEMA.replace('  quantity Int\n', '  quantity Int\n  note     String?\n'));
    expect(exitCode(await diff('changed.prisma'), 2)).toContain('OrderLine');
  });

  it('PGlite: migrate dev --create-only writes a migration, migrate deploy applies it, migrate status agrees', { timeout: TIMEOUT }, async ({ expect }) => {
    const dir = project('pglite');
    const url = `pglite:${path.join(dir, 'db')}`;
    exitCode(await prisma(dir, url, ['migrate', 'dev', '--create-only', '--name', 'init']), 0);
    const [migration] = fs.readdirSync(path.join(dir, 'migrations')).filter((name) => name.endsWith('_init'));
    expect(fs.readFileSync(path.join(dir, 'migrations', migration, 'migration.sql'), 'utf8')).toContain('CREATE TABLE "Order"');

    expect(exitCode(await prisma(dir, url, ['migrate', 'deploy']), 0)).toContain('All migrations have been successfully applied');
    expect(exitCode(await prisma(dir, url, ['migrate', 'status']), 0)).toContain('Database schema is up to date');
    // The engine closed the data directory and released the app's lock file.
    expect(fs.existsSync(path.join(dir, 'db.lock'))).toBe(false);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: migrate deploy and migrate status on a fresh database', { timeout: TIMEOUT }, async ({ expect }) => {
    const server = process.env.TEST_DATABASE_URL as string;
    const name = `t_${inject('runId') ?? process.pid}_engine_${crypto.randomBytes(3).toString('hex')}`;
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    };
    const dir = project('postgres');
    writeMigration(dir, await diffFromEmpty());
    await admin(`CREATE DATABASE "${name}"`);
    try {
      const url = new URL(server);
      url.pathname = `/${name}`;
      expect(exitCode(await prisma(dir, url.toString(), ['migrate', 'deploy']), 0)).toContain('All migrations have been successfully applied');
      expect(exitCode(await prisma(dir, url.toString(), ['migrate', 'status']), 0)).toContain('Database schema is up to date');
    } finally {
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  });
});

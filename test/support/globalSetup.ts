// Builds one migrated template database per run; every test file then starts from
// a copy of it (a PGlite data-directory dump, or a PostgreSQL TEMPLATE database).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/db/client.ts';
import { pgliteChannel } from '../../src/db/pglite.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { PGLITE_EXTENSIONS } from '../../src/db/pgliteExtensions.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
    runId: string;
  }
}

export function databaseName(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function setup(project: TestProject) {
  const runId = `${process.pid}_${Date.now().toString(36)}`;
  project.provide('runId', runId);
  const postgresUrl = process.env.TEST_DATABASE_URL;
  if (postgresUrl) {
    const template = `tmpl_${runId}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${template}"`);
    const db = await openDatabase(databaseName(postgresUrl, template), { poolSize: 1 });
    await applyMigrations(db);
    await db.close();
    project.provide('postgresTemplate', template);
    project.provide('pgliteTemplate', '');
    return async () => {
      const rows = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
        [template, `t_${runId}_%`],
      );
      for (const { datname } of rows.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      await admin.end();
    };
  }
  const pglite = new PGlite({ extensions: PGLITE_EXTENSIONS });
  const channel = pgliteChannel(pglite);
  await applyMigrations({ session: (fn) => fn(channel) });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-template-'));
  const file = path.join(dir, 'template.tar');
  const dump = await pglite.dumpDataDir('none');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await pglite.close();
  project.provide('pgliteTemplate', file);
  project.provide('postgresTemplate', '');
  return async () => fs.rmSync(dir, { recursive: true, force: true });
}

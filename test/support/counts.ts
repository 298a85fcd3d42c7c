// Row counts of every table, to show that a refused request wrote nothing.
import type { Database } from '../../src/db/database.ts';

/** Tables whose rows bookkeeping writes on every request, whatever its outcome. */
const BOOKKEEPING = new Set(['_prisma_migrations']);

export async function rowCounts(db: Database): Promise<Record<string, number>> {
  const tables = await db.sql.query<{ table_name: string }>(
    `SELECT tablename AS table_name FROM pg_catalog.pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
  );
  const names = tables.map((t) => t.table_name).filter((name) => !BOOKKEEPING.has(name));
  if (names.length === 0) return {};
  // pg_tables and one statement for every table: information_schema and a round trip per table
  // made a snapshot cost ~80 ms on PGlite, too much for the fuzzer's snapshot per batch of writes.
  const [row] = await db.sql.query<Record<string, string | number>>(`SELECT ${names.map((name, i) => `(SELECT count(*) FROM "${name}") AS c${i}`).join(', ')}`);
  return Object.fromEntries(names.map((name, i) => [name, Number(row[`c${i}`])]));
}

const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK)\b|^-- Implicit "(BEGIN|COMMIT|ROLLBACK)"/i;

/** The SQL statements Prisma ran on `db` while `run` ran, transaction control aside. */
export async function statementsDuring(db: Database, run: () => Promise<unknown>): Promise<string[]> {
  return (await statementsWithParamsDuring(db, run)).map(({ sql }) => sql);
}

/** statementsDuring's statements with their parameters, to run one again. */
export async function statementsWithParamsDuring(db: Database, run: () => Promise<unknown>): Promise<{ sql: string; params: unknown[] }[]> {
  const seen: { sql: string; params: unknown[] }[] = [];
  const stop = db.onStatement(({ sql, params }) => {
    if (!TRANSACTION_CONTROL.test(sql)) seen.push({ sql, params });
  });
  try {
    await run();
  } finally {
    stop();
  }
  return seen;
}

/**
 * Every statement the service sent to `db` while `run` ran, transaction control aside: Prisma's
 * and the reads' (db.onStatement) and the raw channel's (db.sql, on which the validators read
 * the store's changes), in the order they finished.
 */
export async function everyStatementDuring(db: Database, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const note = (sql: string) => {
    if (!TRANSACTION_CONTROL.test(sql)) seen.push(sql);
  };
  const { query, exec } = db.sql;
  db.sql.query = async (text, params, options) => {
    try {
      return await query(text, params, options);
    } finally {
      note(text);
    }
  };
  db.sql.exec = async (script) => {
    try {
      return await exec(script);
    } finally {
      note(script);
    }
  };
  const stop = db.onStatement(({ sql }) => note(sql));
  try {
    await run();
  } finally {
    stop();
    db.sql.query = query;
    db.sql.exec = exec;
  }
  return seen;
}

// Row counts of every table, to show that a refused request wrote nothing.
import type { Database } from '../../src/db/database.ts';

/** Tables whose rows bookkeeping writes on every request, whatever its outcome. */
const BOOKKEEPING = new Set(['_prisma_migrations']);

export async function rowCounts(db: Database): Promise<Record<string, number>> {
  const tables = await db.sql.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name: name } of tables) {
    if (BOOKKEEPING.has(name)) continue;
    const [row] = await db.sql.query<{ count: string | number }>(`SELECT count(*) AS count FROM "${name}"`);
    counts[name] = Number(row.count);
  }
  return counts;
}

const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK)\b|^-- Implicit "(BEGIN|COMMIT|ROLLBACK)"/i;

/** The SQL statements Prisma ran on `db` while `run` ran, transaction control aside. */
export async function statementsDuring(db: Database, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const stop = db.onStatement(({ sql }) => {
    if (!TRANSACTION_CONTROL.test(sql)) seen.push(sql);
  });
  try {
    await run();
  } finally {
    stop();
  }
  return seen;
}

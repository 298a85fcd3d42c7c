// A PostgreSQL database of its own for one bench run (created empty, dropped after), on the
// server at BENCH_POSTGRES_URL, or at the admin URL given.
import pg from 'pg';

export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export async function scratchDatabase(label: string, adminUrl = POSTGRES_ADMIN_URL): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      // Closed pools finish closing their sockets asynchronously; a forced drop that
      // beats them would make the server signal an error to a client already ending.
      for (let i = 0; i < 50; i++) {
        const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (rows[0].n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** A database that outlives the run, `bench_<label>` (created when missing: then `fresh`); dropping it is left to whoever wants it gone. */
export async function keptDatabase(label: string): Promise<{ url: string; fresh: boolean; drop: () => Promise<void> }> {
  const name = `bench_${label}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    return { url: url.toString(), fresh: rowCount === 0, drop: async () => {} };
  } finally {
    await admin.end();
  }
}

/**
 * Drops the scratch database, after stopping the service `running` names, when the run is
 * interrupted (Ctrl-C, SIGTERM); the answer stops watching once the run cleans up by itself.
 */
export function dropOnInterrupt(scratch: { drop(): Promise<void> }, running: () => { child: { kill(signal: NodeJS.Signals): unknown } } | undefined): () => void {
  const interrupted = (signal: NodeJS.Signals) => {
    running()?.child.kill('SIGTERM');
    void scratch.drop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  return () => {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  };
}

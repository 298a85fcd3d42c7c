// The demo store's API secret, kept for the developer next to the embedded database it
// belongs to (`data/pglite` -> `data/pglite.demo-credentials.json`), never for
// PostgreSQL. A kept secret is shown again only when it still authenticates against
// the database now open, so a start on another database never prints a dead secret.
import fs from 'node:fs';
import path from 'node:path';
import { authenticate, isAuthFailure } from '../auth/authenticate.ts';
import { describeUrl } from '../db/client.ts';
import type { Database } from '../db/database.ts';

export interface DemoCredentials {
  storeId: string;
  secret: string;
  /** Sign-in of the merchant dashboard (/admin), made with the demo data. */
  login?: { email: string; password: string };
}

/** Where the embedded database at `databaseUrl` keeps its demo credentials; undefined for PostgreSQL and memory. */
export function demoCredentialsFile(databaseUrl: string): string | undefined {
  const { kind, target } = describeUrl(databaseUrl);
  if (kind !== 'pglite' || target === '' || target === 'memory:') return undefined;
  return `${path.resolve(target)}.demo-credentials.json`;
}

export function keepDemoCredentials(databaseUrl: string, credentials: DemoCredentials): void {
  const file = demoCredentialsFile(databaseUrl);
  if (file) fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
}

/** The kept credentials of this database, if they still let the demo store in. */
export async function keptDemoCredentials(db: Database): Promise<DemoCredentials | undefined> {
  const file = demoCredentialsFile(db.url);
  if (!file || !fs.existsSync(file)) return undefined;
  let kept: DemoCredentials;
  try {
    kept = JSON.parse(fs.readFileSync(file, 'utf8')) as DemoCredentials;
  } catch {
    return undefined;
  }
  if (typeof kept.secret !== 'string' || typeof kept.storeId !== 'string') return undefined;
  const auth = await authenticate(db.prisma, kept.secret);
  return !isAuthFailure(auth) && auth.store.id === kept.storeId ? kept : undefined;
}

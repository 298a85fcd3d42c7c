// Small helpers shared by the compatibility-interface tests.
import type { Database } from '../../src/db/database.ts';
import { call, type TestServer } from '../support/server.ts';

export const WAREHOUSE = '/api/v1/warehouse';

/** A request to the warehouse interface with the Bearer secret. */
export function warehouse(
  server: TestServer,
  secret: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  return call(server, method, `${WAREHOUSE}${path}`, { secret, ...options });
}

/** Everything a refused action must leave as it was: the return, its items, notes, history and events. */
export async function returnSnapshot(db: Database, id: string) {
  const ret = await db.prisma.return.findUniqueOrThrow({
    where: { id },
    include: { items: { orderBy: { id: 'asc' } }, notes: true, statusChanges: true },
  });
  const events = await db.prisma.event.count({ where: { subjectId: id } });
  return { ...ret, events };
}

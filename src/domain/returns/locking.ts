// Finding a return by any of its four references, and the locks and records every change of
// one shares: the return (and where quantities are claimed, its order) is locked first, so a
// refused operation leaves nothing behind.
import { Prisma, type ReturnStatus } from '../../generated/prisma/client.ts';
import { Invalid, NotFound } from '../errors.ts';
import { recordEvent } from '../events.ts';
import { newId } from '../ids.ts';
import { type Db, type Tx } from '../tx.ts';
import { RELEASED, type StatusOperation } from './status.ts';

/** The ways a client may name a return; several may be given if they agree. */
export interface ReturnRef {
  /** The svc_id (24 hex digits). */
  id?: string | null;
  /** The compatibility interface's numeric id. */
  number?: number | null;
  /** Order name ("#1001"); the order's newest return. */
  orderName?: string | null;
  /** Our order id (ord_); the order's newest return. */
  orderId?: string | null;
}

type RefKey = keyof ReturnRef;
const REF_KEYS: RefKey[] = ['number', 'id', 'orderName', 'orderId'];

const REF_SELECT = { id: true, number: true, orderId: true, order: { select: { name: true } } } satisfies Prisma.ReturnSelect;
type RefCandidate = Prisma.ReturnGetPayload<{ select: typeof REF_SELECT }>;

function newestOfOrder(where: Prisma.ReturnWhereInput) {
  return { where, select: REF_SELECT, orderBy: [{ createdAt: 'desc' as const }, { number: 'desc' as const }] };
}

function matches(candidate: RefCandidate, key: RefKey, value: string | number): boolean {
  switch (key) {
    case 'id':
      return candidate.id === value;
    case 'number':
      return candidate.number === value;
    case 'orderName':
      return candidate.order?.name === value;
    case 'orderId':
      return candidate.orderId === value;
  }
}

/**
 * The id of the return the reference names in the store. Unknown (or another store's)
 * returns are NotFound; criteria naming different returns are Invalid.
 */
export async function findReturnId(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  const given = REF_KEYS.flatMap((key) => {
    const value = ref[key];
    return value === null || value === undefined || value === '' ? [] : [{ key, value }];
  });
  if (given.length === 0) throw new Invalid('name the return by id, number, orderName or orderId', { path: 'id' });
  if (ref.number !== null && ref.number !== undefined && (!Number.isSafeInteger(ref.number) || ref.number < 1)) {
    throw new Invalid('number must be a positive integer', { path: 'number' });
  }
  const [primary, ...others] = given;
  let candidate: RefCandidate | null;
  switch (primary.key) {
    case 'number':
      candidate = await db.return.findFirst({ where: { storeId, number: Number(primary.value) }, select: REF_SELECT });
      break;
    case 'id':
      candidate = await db.return.findFirst({ where: { storeId, id: String(primary.value) }, select: REF_SELECT });
      break;
    case 'orderName': {
      // The order by its (storeId, name) index first, then its newest return by (orderId, createdAt):
      // one statement joining the two makes PostgreSQL walk every return of the store newest first.
      const orders = await db.order.findMany({ where: { storeId, name: String(primary.value) }, select: { id: true } });
      candidate = orders.length === 0 ? null : await db.return.findFirst(newestOfOrder({ storeId, orderId: { in: orders.map((o) => o.id) } }));
      break;
    }
    case 'orderId':
      candidate = await db.return.findFirst(newestOfOrder({ storeId, orderId: String(primary.value) }));
      break;
  }
  if (!candidate) throw new NotFound(`no return found for ${primary.key} ${primary.value}`, { path: primary.key });
  const found = candidate;
  const contradicting = others.filter(({ key, value }) => !matches(found, key, value));
  if (contradicting.length > 0) {
    throw Invalid.of(
      contradicting.map(({ key, value }) => ({
        path: key,
        message: `${key} ${value} does not name the return found by ${primary.key} ${primary.value}`,
      })),
    );
  }
  return found.id;
}

const LOCKED_SELECT = {
  id: true,
  storeId: true,
  number: true,
  status: true,
  orderId: true,
  items: { select: { id: true, orderLineItemId: true, quantity: true, outcome: true, removedAt: true } },
} satisfies Prisma.ReturnSelect;

/**
 * How messages name the return: by the order when the caller named it so, else by its number
 * (#73), the name people use: never by its svc_id, which says nothing to a person.
 */
function labelOf(ref: ReturnRef, number: number): string {
  const [first] = REF_KEYS.flatMap((key) => (ref[key] === null || ref[key] === undefined || ref[key] === '' ? [] : [key]));
  switch (first) {
    case 'orderName':
      return `the return of order ${ref.orderName}`;
    case 'orderId':
      return `the return of order ${ref.orderId}`;
    default:
      return `return #${number}`;
  }
}

/** Resolves the reference and locks the return's row until the transaction ends. */
export type LockedReturn = { id: string; storeId: string; number: number; status: ReturnStatus };

export async function lockReturn(tx: Tx, storeId: string, ref: ReturnRef) {
  const id = await findReturnId(tx, storeId, ref);
  await tx.$queryRaw`SELECT "id" FROM "Return" WHERE "id" = ${id} FOR UPDATE`;
  const locked = await tx.return.findUniqueOrThrow({ where: { id }, select: LOCKED_SELECT });
  return { ...locked, label: labelOf(ref, locked.number) };
}

export async function lockOrder(tx: Tx, storeId: string, orderId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Order" WHERE "id" = ${orderId} AND "storeId" = ${storeId} FOR UPDATE`;
  return rows.length > 0;
}

/**
 * The return items that claim their order line's units: still on a live return (removed items
 * and released returns excluded). A read may select a line's `returnItems` with it and sum their
 * quantities, in the statement that reads the line.
 */
export const CLAIMING_RETURN_ITEMS = { removedAt: null, return: { status: { notIn: RELEASED } } } satisfies Prisma.ReturnItemWhereInput;

/** Units of a line a new return may still claim: ordered less those live returns claim, never below 0. */
export function returnableUnits(ordered: number, claimed: number): number {
  return Math.max(0, ordered - claimed);
}

/** Units of each order line claimed by live returns (CLAIMING_RETURN_ITEMS). */
export async function claimedQuantities(tx: Db | Tx, lineIds: string[], exceptReturnId?: string): Promise<Map<string, number>> {
  const rows = await tx.returnItem.groupBy({
    by: ['orderLineItemId'],
    where: {
      orderLineItemId: { in: lineIds },
      ...CLAIMING_RETURN_ITEMS,
      return: { ...CLAIMING_RETURN_ITEMS.return, ...(exceptReturnId ? { id: { not: exceptReturnId } } : {}) },
    },
    _sum: { quantity: true },
  });
  return new Map(rows.flatMap((row) => (row.orderLineItemId ? [[row.orderLineItemId, row._sum.quantity ?? 0] as const] : [])));
}

export async function recordChange(
  tx: Tx,
  returnId: string,
  change: { operation: StatusOperation | 'create'; from: ReturnStatus | null; to: ReturnStatus },
): Promise<void> {
  await tx.returnStatusChange.create({
    data: { id: newId('returnStatusChange'), returnId, operation: change.operation, fromStatus: change.from, toStatus: change.to },
  });
}

export async function emitUpdated(tx: Tx, target: { id: string; storeId: string; number: number }, data: Record<string, unknown>): Promise<void> {
  await recordEvent(tx, { storeId: target.storeId, topic: 'return.updated', subjectId: target.id, data: { id: target.id, number: target.number, ...data } });
}

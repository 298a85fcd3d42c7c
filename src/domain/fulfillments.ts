// Fulfillments of orders with carrier tracking, shipment status updates and order
// deletion. A fulfillment ships some units of an order's lines; over all of an order's
// fulfillments a line never ships more than it ordered. Shipment statuses replace the
// current status; automation events (stalled_in_transit, delayed, arriving_early) only
// add to the tracking history. Each change records its event in the same transaction.
import type { Fulfillment, Order, Prisma } from '../generated/prisma/client.ts';
import { InputIssues, optionalText } from './inputChecks.ts';
import { parseIsoDateTime } from './customers.ts';
import { Conflict, NotFound } from './errors.ts';
import { recordEvent } from './events.ts';
import { newId } from './ids.ts';
import { MAX_LINE_QUANTITY, releaseCommitments } from './orders.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export const SHIPMENT_STATUSES = [
  'pre_transit',
  'unknown',
  'in_transit',
  'out_for_delivery',
  'available_for_pickup',
  'delivered',
  'return_to_sender',
  'failure',
  'cancelled',
  'error',
] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

/** Events that trigger automations without changing the current status. */
export const SHIPMENT_EVENTS = ['stalled_in_transit', 'delayed', 'arriving_early'] as const;

export interface TrackingLocationInput {
  city?: string | null;
  state?: string | null;
  country?: string | null;
  postalCode?: string | null;
}

export interface TrackingUpdateInput {
  status: string;
  estimatedDeliveryDate?: Date | string | null;
  message?: string | null;
  datetime?: Date | string | null;
  location?: TrackingLocationInput | null;
}

export interface FulfillmentInput {
  fulfillmentId?: string | null;
  lineItems: { id: string; quantity: number }[];
  tracking?: { carrier: string; code: string } | null;
  /** The first tracking entry; its status becomes the current status (default pre_transit). */
  initialTracking?: TrackingUpdateInput | null;
}

export interface OrderReference {
  /** Our ord_ id, the merchant's orderId, or (when `byName`) the order name such as #1001. */
  reference: string;
  byName?: boolean;
}

/** The store's order named by our id, the merchant's orderId or, if allowed, its name. */
/**
 * The orders of the store a reference may name (by our id, the merchant's id or, byName, the
 * order name), in the order chooseReferencedOrder breaks a tie between same-named ones.
 */
export function orderReferenceQuery(storeId: string, { reference, byName }: OrderReference) {
  return {
    where: { storeId, OR: [{ id: reference }, { externalId: reference }, ...(byName ? [{ name: reference }] : [])] },
    orderBy: { id: 'asc' },
  } satisfies Prisma.OrderFindManyArgs;
}

/**
 * The order a reference names among the candidates: our id first, then the merchant's id, then
 * the name (an id is never ambiguous; of several orders with one name, the first in the given order).
 */
export function chooseReferencedOrder<T extends { id: string; externalId: string }>(candidates: T[], reference: string): T | null {
  return candidates.find((o) => o.id === reference) ?? candidates.find((o) => o.externalId === reference) ?? candidates[0] ?? null;
}

export async function findOrder(db: Db | Tx, storeId: string, ref: OrderReference): Promise<Order | null> {
  return chooseReferencedOrder(await db.order.findMany(orderReferenceQuery(storeId, ref)), ref.reference);
}

async function requireOrder(tx: Tx, storeId: string, reference: string): Promise<Order> {
  const order = await findOrder(tx, storeId, { reference });
  if (!order) throw new NotFound(`order ${reference} not found`, { path: 'orderId' });
  return order;
}

function parseInstant(issues: InputIssues, path: string, value: Date | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  const parsed = parseIsoDateTime(value);
  if (!parsed) issues.add(path, 'must be an ISO 8601 date-time with a time zone');
  return parsed;
}

interface ParsedTracking {
  status: string;
  changesStatus: boolean;
  estimatedDeliveryDate: string | null | undefined;
  message: string;
  occurredAt: Date;
  location: { city: string | null; state: string | null; country: string | null; postalCode: string | null };
}

function parseTracking(issues: InputIssues, prefix: string, input: TrackingUpdateInput, allowEvents: boolean): ParsedTracking {
  const statuses: readonly string[] = allowEvents ? [...SHIPMENT_STATUSES.filter((s) => s !== 'unknown'), ...SHIPMENT_EVENTS] : SHIPMENT_STATUSES;
  const path = (name: string) => (prefix ? `${prefix}.${name}` : name);
  if (!statuses.includes(input.status)) issues.add(path('status'), `must be one of ${statuses.join(', ')}`);
  const estimated = parseInstant(issues, path('estimatedDeliveryDate'), input.estimatedDeliveryDate);
  const occurredAt = parseInstant(issues, path('datetime'), input.datetime) ?? new Date();
  const text = (name: keyof TrackingLocationInput) => optionalText(issues, path(`location.${name}`), input.location?.[name] ?? null) ?? null;
  const message = optionalText(issues, path('message'), input.message ?? null, 1000) ?? input.status;
  return {
    status: input.status,
    changesStatus: (SHIPMENT_STATUSES as readonly string[]).includes(input.status),
    estimatedDeliveryDate: input.estimatedDeliveryDate === undefined ? undefined : estimated ? estimated.toISOString().slice(0, 10) : null,
    message,
    occurredAt,
    location: { city: text('city'), state: text('state'), country: text('country'), postalCode: text('postalCode') },
  };
}

async function addTrackingEvent(tx: Tx, fulfillmentId: string, tracking: ParsedTracking): Promise<void> {
  await tx.fulfillmentTrackingEvent.create({
    data: { id: newId('fulfillmentTrackingEvent'), fulfillmentId, status: tracking.status, message: tracking.message, occurredAt: tracking.occurredAt, ...tracking.location },
  });
}

async function fulfillmentEventData(tx: Tx, fulfillment: Fulfillment, order: Order) {
  const lines = await tx.fulfillmentLineItem.findMany({ where: { fulfillmentId: fulfillment.id }, include: { orderLineItem: true } });
  return {
    id: fulfillment.id,
    fulfillmentId: fulfillment.externalId,
    orderId: order.id,
    externalOrderId: order.externalId,
    status: fulfillment.status,
    trackingCompany: fulfillment.trackingCompany,
    trackingNumber: fulfillment.trackingNumber,
    estimatedDeliveryDate: fulfillment.estimatedDeliveryDate,
    deliveredAt: fulfillment.deliveredAt?.toISOString() ?? null,
    lineItems: lines.map((l) => ({ id: l.orderLineItem.externalId, quantity: l.quantity })),
    updatedAt: fulfillment.updatedAt.toISOString(),
  };
}

/**
 * Creates a fulfillment of the order's lines (named by the merchant's line id or our
 * oli_ id). Refused as a whole when a line is unknown or would ship more than ordered.
 */
export async function createFulfillment(db: Db | Tx, storeId: string, orderReference: string, input: FulfillmentInput): Promise<Fulfillment> {
  return inTransaction(db, async (tx) => {
    const order = await requireOrder(tx, storeId, orderReference);
    // Serialises fulfillments of one order, so two cannot both ship the last units.
    await tx.$queryRaw`SELECT id FROM "Order" WHERE id = ${order.id} FOR UPDATE`;
    const issues = new InputIssues();
    const externalId = optionalText(issues, 'fulfillmentId', input.fulfillmentId ?? null) ?? null;
    if (input.lineItems.length === 0) issues.add('lineItems', 'must name at least one line item');
    const orderLines = await tx.orderLineItem.findMany({ where: { orderId: order.id }, include: { fulfillmentLines: true } });
    const requested = new Map<string, number>();
    input.lineItems.forEach((item, i) => {
      const line = orderLines.find((l) => l.externalId === item.id) ?? orderLines.find((l) => l.id === item.id);
      if (!line) return issues.add(`lineItems.${i}.id`, `the order has no line item ${item.id}`);
      if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_LINE_QUANTITY) {
        return issues.add(`lineItems.${i}.quantity`, `must be an integer from 1 to ${MAX_LINE_QUANTITY}`);
      }
      const shipped = line.fulfillmentLines.reduce((sum, f) => sum + f.quantity, 0);
      const total = (requested.get(line.id) ?? 0) + item.quantity;
      if (shipped + total > line.quantity) {
        issues.add(`lineItems.${i}.quantity`, `line item ${item.id} ordered ${line.quantity}, ${shipped} already fulfilled; ${total} more is too many`);
      }
      requested.set(line.id, total);
    });
    const carrier = input.tracking ? optionalText(issues, 'tracking.carrier', input.tracking.carrier) : null;
    const code = input.tracking ? optionalText(issues, 'tracking.code', input.tracking.code) : null;
    const initial = input.initialTracking ? parseTracking(issues, 'initialTracking', input.initialTracking, false) : null;
    issues.throwIfAny();

    const id = newId('fulfillment');
    const fulfillmentId = externalId ?? id;
    if (await tx.fulfillment.findUnique({ where: { orderId_externalId: { orderId: order.id, externalId: fulfillmentId } } })) {
      throw new Conflict(`order ${order.externalId} already has fulfillment ${fulfillmentId}`, { path: 'fulfillmentId' });
    }
    const status = initial?.changesStatus ? initial.status : 'pre_transit';
    await tx.fulfillment.create({
      data: {
        id,
        storeId,
        orderId: order.id,
        externalId: fulfillmentId,
        trackingCompany: carrier ?? null,
        trackingNumber: code ?? null,
        status,
        estimatedDeliveryDate: initial?.estimatedDeliveryDate ?? null,
        deliveredAt: status === 'delivered' ? (initial?.occurredAt ?? new Date()) : null,
        lineItems: { create: [...requested].map(([orderLineItemId, quantity]) => ({ id: newId('fulfillmentLineItem'), orderLineItemId, quantity })) },
      },
    });
    if (initial) await addTrackingEvent(tx, id, initial);
    const created = await tx.fulfillment.findUniqueOrThrow({ where: { id } });
    await recordEvent(tx, { storeId, topic: 'fulfillment.created', subjectId: id, data: await fulfillmentEventData(tx, created, order) });
    return created;
  });
}

/** Records a shipment status or automation event of one of the order's fulfillments. */
export async function updateShipmentStatus(
  db: Db | Tx,
  storeId: string,
  orderReference: string,
  fulfillmentReference: string,
  input: TrackingUpdateInput,
): Promise<Fulfillment> {
  return inTransaction(db, async (tx) => {
    const order = await requireOrder(tx, storeId, orderReference);
    const found = await tx.fulfillment.findFirst({ where: { orderId: order.id, OR: [{ id: fulfillmentReference }, { externalId: fulfillmentReference }] } });
    if (!found) throw new NotFound(`order ${order.externalId} has no fulfillment ${fulfillmentReference}`, { path: 'fulfillmentId' });
    const issues = new InputIssues();
    const tracking = parseTracking(issues, '', input, true);
    issues.throwIfAny();
    const updated = await tx.fulfillment.update({
      where: { id: found.id },
      data: {
        ...(tracking.changesStatus ? { status: tracking.status, deliveredAt: tracking.status === 'delivered' ? tracking.occurredAt : found.deliveredAt } : {}),
        ...(tracking.estimatedDeliveryDate !== undefined ? { estimatedDeliveryDate: tracking.estimatedDeliveryDate } : {}),
      },
    });
    await addTrackingEvent(tx, found.id, tracking);
    await recordEvent(tx, { storeId, topic: 'fulfillment.updated', subjectId: found.id, data: { ...(await fulfillmentEventData(tx, updated, order)), event: tracking.status } });
    return updated;
  });
}

/**
 * Deletes an order with its lines and fulfillments and releases the stock its lines
 * committed. An order with returns is kept: the returns depend on it.
 */
export async function deleteOrder(db: Db | Tx, storeId: string, orderReference: string): Promise<Order> {
  return inTransaction(db, async (tx) => {
    const order = await requireOrder(tx, storeId, orderReference);
    await tx.$queryRaw`SELECT id FROM "Order" WHERE id = ${order.id} FOR UPDATE`;
    const returns = await tx.return.count({ where: { orderId: order.id } });
    if (returns > 0) throw new Conflict(`order ${order.externalId} has ${returns} return(s) and cannot be deleted`, { path: 'orderId' });
    await releaseCommitments(tx, order.id, 'order_deleted');
    await tx.order.delete({ where: { id: order.id } });
    await recordEvent(tx, { storeId, topic: 'order.deleted', subjectId: order.id, data: { id: order.id, externalId: order.externalId, name: order.name } });
    return order;
  });
}

export interface SyncedFulfillmentInput {
  /** The merchant's fulfillment id, unique in the order. */
  fulfillmentId: string;
  lineItems: { id: string; quantity: number }[];
  tracking?: { carrier?: string | null; code: string } | null;
  /** When the shipment was delivered; makes its status delivered. */
  deliveredAt?: Date | string | null;
}

type ParsedSyncedFulfillment = {
  externalId: string;
  trackingCompany: string | null;
  trackingNumber: string | null;
  deliveredAt: Date | null;
  lines: Map<string, number>;
};

function parseSyncedFulfillments(issues: InputIssues, orderLines: { id: string; externalId: string; quantity: number }[], inputs: SyncedFulfillmentInput[]) {
  const shipped = new Map<string, number>();
  const seen = new Set<string>();
  const parsed = inputs.map((input, i): ParsedSyncedFulfillment => {
    const path = `fulfillments.${i}`;
    const externalId = optionalText(issues, `${path}.fulfillmentId`, input.fulfillmentId) ?? '';
    if (!externalId) issues.add(`${path}.fulfillmentId`, 'must not be empty');
    else if (seen.has(externalId)) issues.add(`${path}.fulfillmentId`, `fulfillment ${externalId} appears twice in the order`);
    seen.add(externalId);
    const lines = new Map<string, number>();
    input.lineItems.forEach((item, j) => {
      const line = orderLines.find((l) => l.externalId === item.id) ?? orderLines.find((l) => l.id === item.id);
      if (!line) return issues.add(`${path}.lineItems.${j}.id`, `the order has no line item ${item.id}`);
      if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_LINE_QUANTITY) {
        return issues.add(`${path}.lineItems.${j}.quantity`, `must be an integer from 1 to ${MAX_LINE_QUANTITY}`);
      }
      lines.set(line.id, (lines.get(line.id) ?? 0) + item.quantity);
      const total = (shipped.get(line.id) ?? 0) + item.quantity;
      if (total > line.quantity) issues.add(`${path}.lineItems.${j}.quantity`, `line item ${line.externalId} ordered ${line.quantity}; the fulfillments ship ${total}`);
      shipped.set(line.id, total);
    });
    return {
      externalId,
      trackingCompany: input.tracking ? (optionalText(issues, `${path}.tracking.carrier`, input.tracking.carrier ?? null) ?? null) : null,
      trackingNumber: input.tracking ? (optionalText(issues, `${path}.tracking.code`, input.tracking.code) ?? null) : null,
      deliveredAt: parseInstant(issues, `${path}.deliveredAt`, input.deliveredAt),
      lines,
    };
  });
  return parsed;
}

/** What a fulfillment.updated subscriber would see change. */
function fulfillmentFingerprint(f: { trackingCompany: string | null; trackingNumber: string | null; deliveredAt: Date | null }, lines: Map<string, number>): string {
  return JSON.stringify([f.trackingCompany, f.trackingNumber, f.deliveredAt?.toISOString() ?? null, [...lines].sort()]);
}

/**
 * Makes the order's fulfillments exactly `inputs` (a synced order sends its full set): one
 * with a known fulfillmentId takes the new lines and tracking, a new one is created, the
 * others are deleted. Over all of them a line never ships more than it ordered. A delivery
 * date makes the status delivered; otherwise the status the tracking updates set is kept.
 */
export async function replaceFulfillments(tx: Tx, storeId: string, order: Order, inputs: SyncedFulfillmentInput[]): Promise<void> {
  const orderLines = await tx.orderLineItem.findMany({ where: { orderId: order.id }, select: { id: true, externalId: true, quantity: true } });
  const issues = new InputIssues();
  const parsed = parseSyncedFulfillments(issues, orderLines, inputs);
  issues.throwIfAny();
  const existing = await tx.fulfillment.findMany({ where: { orderId: order.id }, include: { lineItems: true } });
  const dropped = existing.filter((f) => !parsed.some((p) => p.externalId === f.externalId));
  if (dropped.length > 0) await tx.fulfillment.deleteMany({ where: { id: { in: dropped.map((f) => f.id) } } });
  for (const wanted of parsed) {
    const current = existing.find((f) => f.externalId === wanted.externalId);
    const lineItems = { create: [...wanted.lines].map(([orderLineItemId, quantity]) => ({ id: newId('fulfillmentLineItem'), orderLineItemId, quantity })) };
    const tracking = { trackingCompany: wanted.trackingCompany, trackingNumber: wanted.trackingNumber, deliveredAt: wanted.deliveredAt };
    let fulfillment: Fulfillment;
    if (!current) {
      const status = wanted.deliveredAt ? 'delivered' : 'pre_transit';
      fulfillment = await tx.fulfillment.create({ data: { id: newId('fulfillment'), storeId, orderId: order.id, externalId: wanted.externalId, status, ...tracking, lineItems } });
    } else {
      const before = fulfillmentFingerprint(current, new Map(current.lineItems.map((l) => [l.orderLineItemId, l.quantity])));
      if (before === fulfillmentFingerprint(wanted, wanted.lines)) continue;
      await tx.fulfillmentLineItem.deleteMany({ where: { fulfillmentId: current.id } });
      const status = wanted.deliveredAt ? 'delivered' : current.status;
      fulfillment = await tx.fulfillment.update({ where: { id: current.id }, data: { status, ...tracking, deliveredAt: wanted.deliveredAt ?? (status === 'delivered' ? current.deliveredAt : null), lineItems } });
    }
    await recordEvent(tx, {
      storeId,
      topic: current ? 'fulfillment.updated' : 'fulfillment.created',
      subjectId: fulfillment.id,
      data: await fulfillmentEventData(tx, fulfillment, order),
    });
  }
}

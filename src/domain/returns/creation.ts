// Creating a return from an order (docs/interface-rules.md, "Returns"), once per idempotency key.
import crypto from 'node:crypto';
import { Prisma, type ReturnOutcome, type ReturnStatus, type ReturnType } from '../../generated/prisma/client.ts';
import { Conflict, Invalid, isUniqueViolation, NotFound, type FieldIssue } from '../errors.ts';
import { recordEvent } from '../events.ts';
import { chargeReturnProcessingFee } from '../invoices.ts';
import { newId, newReturnId } from '../ids.ts';
import { inTransaction, type Db, type Tx } from '../tx.ts';
import { claimedQuantities, lockOrder, recordChange, returnableUnits } from './locking.ts';

export interface CreateReturnItemInput {
  /** Our order line id (oli_) or the merchant's line item id. */
  lineItemId: string;
  quantity: number;
  reason?: string | null;
  reasonCode?: string | null;
  customerComment?: string | null;
  outcome?: ReturnOutcome | null;
}

export interface ReturnAddressInput {
  line1: string;
  line2?: string | null;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

export interface ReturnLabelInput {
  trackingNumber: string;
  carrier?: string | null;
  trackingUrl?: string | null;
  postageLabelUrl?: string | null;
}

export interface CreateReturnInput {
  /** Our order id (ord_); or `externalOrderId`, the merchant's order id. Exactly one is given. */
  orderId?: string | null;
  externalOrderId?: string | null;
  items: CreateReturnItemInput[];
  type?: ReturnType | null;
  /** Where the customer ships the return from; the order's shipping address when absent. */
  originAddress?: ReturnAddressInput | null;
  /** A label the caller already bought. */
  label?: ReturnLabelInput | null;
  /** Becomes the return's first note. */
  notes?: string | null;
}

export interface CreatedReturn {
  id: string;
  /** True when an earlier request with the same idempotency key made this return. */
  replayed: boolean;
}

export const MAX_REASON_LENGTH = 255;
export const MAX_NOTE_LENGTH = 255;
export const MAX_KEY_LENGTH = 255;
export const MAX_ITEMS = 250;
const IDEMPOTENT_OPERATION = 'createReturn';

function validateCreate(input: CreateReturnInput, idempotencyKey: string | null | undefined): CreateReturnInput & { type: ReturnType } {
  const issues: FieldIssue[] = [];
  const named = [input.orderId, input.externalOrderId].filter((id) => typeof id === 'string' && id.trim() !== '');
  if (named.length !== 1) issues.push({ path: 'orderId', message: 'give exactly one of orderId and externalOrderId' });
  const address = input.originAddress;
  if (address) {
    for (const field of ['line1', 'city', 'state', 'postalCode', 'country'] as const) {
      if (typeof address[field] !== 'string' || address[field].trim() === '') issues.push({ path: `originAddress.${field}`, message: 'is required' });
    }
  }
  if (input.label && (typeof input.label.trackingNumber !== 'string' || input.label.trackingNumber.trim() === '')) {
    issues.push({ path: 'label.trackingNumber', message: 'is required' });
  }
  if (input.notes != null && (input.notes.trim() === '' || input.notes.length > MAX_NOTE_LENGTH)) {
    issues.push({ path: 'notes', message: `must be 1 to ${MAX_NOTE_LENGTH} characters` });
  }
  if (!Array.isArray(input.items) || input.items.length === 0) issues.push({ path: 'items', message: 'must list at least one item' });
  else if (input.items.length > MAX_ITEMS) issues.push({ path: 'items', message: `must list at most ${MAX_ITEMS} items` });
  const seen = new Set<string>();
  (Array.isArray(input.items) ? input.items : []).forEach((item, index) => {
    const at = `items.${index}`;
    if (typeof item.lineItemId !== 'string' || item.lineItemId.trim() === '') {
      issues.push({ path: `${at}.lineItemId`, message: 'is required' });
    } else if (seen.has(item.lineItemId)) {
      issues.push({ path: `${at}.lineItemId`, message: `line item ${item.lineItemId} is listed more than once` });
    } else {
      seen.add(item.lineItemId);
    }
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1) issues.push({ path: `${at}.quantity`, message: 'must be an integer of at least 1' });
    for (const field of ['reason', 'reasonCode', 'customerComment'] as const) {
      const text = item[field];
      if (text != null && text.length > MAX_REASON_LENGTH) issues.push({ path: `${at}.${field}`, message: `must be at most ${MAX_REASON_LENGTH} characters` });
    }
  });
  if (idempotencyKey != null && (idempotencyKey.length === 0 || idempotencyKey.length > MAX_KEY_LENGTH)) {
    issues.push({ path: 'idempotencyKey', message: `must be 1 to ${MAX_KEY_LENGTH} characters` });
  }
  if (issues.length > 0) throw Invalid.of(issues);
  return { ...input, type: input.type ?? 'return' };
}

/** A request's fingerprint: a replay must repeat it exactly (defaults filled in). */
function requestHash(input: CreateReturnInput & { type: ReturnType }): string {
  const canonical = JSON.stringify({
    orderId: input.orderId ?? null,
    externalOrderId: input.externalOrderId ?? null,
    originAddress: input.originAddress ?? null,
    label: input.label ?? null,
    notes: input.notes ?? null,
    type: input.type,
    items: input.items.map((item) => ({
      lineItemId: item.lineItemId,
      quantity: item.quantity,
      reason: item.reason ?? null,
      reasonCode: item.reasonCode ?? null,
      customerComment: item.customerComment ?? null,
      outcome: item.outcome ?? 'refund',
    })),
  });
  return crypto.createHash('sha256').update(canonical).digest('hex');
}

interface Fingerprint {
  /** The creating operation the key belongs to. */
  operation: string;
  hash: string;
}

function replayOf(stored: { operation: string; requestHash: string; resourceId: string }, request: Fingerprint, key: string): CreatedReturn {
  if (stored.operation !== request.operation || stored.requestHash !== request.hash) {
    throw new Conflict(`the idempotency key "${key}" was already used with a different request`, { path: 'idempotencyKey' });
  }
  return { id: stored.resourceId, replayed: true };
}


/**
 * Runs `insert` for a new return id in one transaction, once per idempotency key: a repeat of
 * the same request gives the same return back (`replayed`), a different request with the key
 * is a Conflict, and concurrent duplicates make one return. Inside a caller's transaction (a
 * Tx) a concurrent duplicate's unique violation ends that whole transaction instead.
 */
export async function createOnce(
  db: Db | Tx,
  storeId: string,
  key: string | null,
  request: Fingerprint,
  insert: (tx: Tx, id: string) => Promise<void>,
): Promise<CreatedReturn> {
  const storedKey = (client: Db | Tx, keyValue: string) => client.idempotencyKey.findUnique({ where: { storeId_key: { storeId, key: keyValue } } });
  try {
    return await inTransaction(db, async (tx) => {
      if (key !== null) {
        const stored = await storedKey(tx, key);
        if (stored) return replayOf(stored, request, key);
      }
      const id = newReturnId();
      // Taken first: a concurrent request with the same key waits here for this one's outcome.
      if (key !== null) {
        await tx.idempotencyKey.create({ data: { storeId, key, operation: request.operation, requestHash: request.hash, resourceId: id } });
      }
      await insert(tx, id);
      return { id, replayed: false };
    });
  } catch (error) {
    // The concurrent twin committed first: answer as its replay.
    const stored = key !== null && isUniqueViolation(error) ? await storedKey(db, key) : null;
    if (key === null || !stored) throw error;
    return replayOf(stored, request, key);
  }
}

/** Creates a return for some of an order's lines, once per idempotency key (see createOnce). */
export async function createReturn(
  db: Db | Tx,
  storeId: string,
  rawInput: CreateReturnInput,
  idempotencyKey?: string | null,
): Promise<CreatedReturn> {
  const input = validateCreate(rawInput, idempotencyKey);
  const request = { operation: IDEMPOTENT_OPERATION, hash: requestHash(input) };
  return createOnce(db, storeId, idempotencyKey ?? null, request, (tx, id) => insertReturn(tx, storeId, id, input));
}

async function orderIdOf(tx: Tx, storeId: string, input: CreateReturnInput): Promise<string> {
  if (input.orderId) return input.orderId;
  const order = await tx.order.findUnique({ where: { storeId_externalId: { storeId, externalId: input.externalOrderId! } }, select: { id: true } });
  if (!order) throw new NotFound(`order ${input.externalOrderId} not found`, { path: 'externalOrderId' });
  return order.id;
}

async function insertReturn(tx: Tx, storeId: string, id: string, input: CreateReturnInput & { type: ReturnType }): Promise<void> {
  const orderId = await orderIdOf(tx, storeId, input);
  const orderLabel = input.orderId ?? input.externalOrderId;
  if (!(await lockOrder(tx, storeId, orderId))) throw new NotFound(`order ${orderLabel} not found`, { path: 'orderId' });
  const order = await tx.order.findUniqueOrThrow({
    where: { id: orderId },
    select: {
      currency: true,
      lineItems: { select: { id: true, externalId: true, quantity: true, fulfillmentGroup: { select: { locationId: true } } } },
    },
  });
  const issues: FieldIssue[] = [];
  const lines = input.items.map((item, index) => {
    const line = order.lineItems.find((l) => l.id === item.lineItemId) ?? order.lineItems.find((l) => l.externalId === item.lineItemId);
    if (!line) issues.push({ path: `items.${index}.lineItemId`, message: `order ${orderLabel} has no line item ${item.lineItemId}` });
    return line;
  });
  if (issues.length > 0) throw Invalid.of(issues);
  const resolved = lines.map((line) => line!);
  const repeated = resolved.flatMap((line, index) =>
    resolved.findIndex((l) => l.id === line.id) !== index
      ? [{ path: `items.${index}.lineItemId`, message: `line item ${line.externalId} is listed more than once` }]
      : [],
  );
  if (repeated.length > 0) throw Invalid.of(repeated);

  const claimed = await claimedQuantities(tx, resolved.map((line) => line.id));
  const over: FieldIssue[] = [];
  input.items.forEach((item, index) => {
    const line = resolved[index];
    const returnable = returnableUnits(line.quantity, claimed.get(line.id) ?? 0);
    if (item.quantity > returnable) {
      over.push({
        path: `items.${index}.quantity`,
        message: `${item.quantity} requested but only ${returnable} of line item ${line.externalId} can still be returned`,
      });
    }
  });
  if (over.length > 0) throw new Conflict(over.map((i) => `${i.path}: ${i.message}`).join('; '), { path: over[0].path, issues: over });

  const destinationLocationId = resolved.map((line) => line.fulfillmentGroup?.locationId).find((locationId) => locationId != null) ?? null;
  const created = await tx.return.create({
    data: {
      id,
      storeId,
      orderId,
      type: input.type,
      currency: order.currency,
      destinationLocationId,
      originAddress: input.originAddress ? { ...input.originAddress, line2: input.originAddress.line2 ?? null } : Prisma.DbNull,
      ...(input.label
        ? {
            trackingNumber: input.label.trackingNumber,
            carrier: input.label.carrier ?? null,
            trackingUrl: input.label.trackingUrl ?? null,
            labelUrl: input.label.postageLabelUrl ?? null,
          }
        : {}),
      ...(input.notes ? { notes: { create: { id: newId('returnNote'), content: input.notes } } } : {}),
      items: {
        create: input.items.map((item, index) => ({
          id: newId('returnItem'),
          orderLineItemId: resolved[index].id,
          quantity: item.quantity,
          reason: item.reason ?? null,
          reasonCode: item.reasonCode ?? null,
          customerComment: item.customerComment ?? null,
          outcome: item.outcome ?? 'refund',
        })),
      },
    },
    select: { id: true, storeId: true, number: true, status: true, type: true, carrier: true, trackingNumber: true, labelStatus: true },
  });
  await recordCreation(tx, storeId, created, orderId);
}

/**
 * What every new return records: its first status change, the store's processing fee and
 * return.created, then return_label.created when it was made with a label's tracking number.
 */
export async function recordCreation(
  tx: Tx,
  storeId: string,
  created: { id: string; number: number; status: ReturnStatus; type: ReturnType } & LabelFields,
  orderId: string | null,
): Promise<void> {
  await recordChange(tx, created.id, { operation: 'create', from: null, to: created.status });
  await chargeReturnProcessingFee(tx, storeId, created);
  await recordEvent(tx, {
    storeId,
    topic: 'return.created',
    subjectId: created.id,
    data: { id: created.id, number: created.number, status: created.status, type: created.type, orderId },
  });
  if (created.trackingNumber !== null) await emitLabel(tx, { ...created, storeId }, 'return_label.created');
}

/** What the platform's label webhook reports of a label; a change to any of them is label.updated. */
interface LabelFields {
  carrier: string | null;
  trackingNumber: string | null;
  labelStatus: string | null;
}

export async function emitLabel(
  tx: Tx,
  target: { id: string; storeId: string; number: number } & LabelFields,
  topic: 'return_label.created' | 'return_label.updated',
): Promise<void> {
  const { id, number, carrier, trackingNumber, labelStatus } = target;
  // The event's own time (the transaction's), as the label webhook reports it.
  await tx.$executeRaw`UPDATE "Return" SET "labelUpdatedAt" = now() AT TIME ZONE 'UTC' WHERE id = ${id}`;
  await recordEvent(tx, { storeId: target.storeId, topic, subjectId: id, data: { id, number, carrier, trackingNumber, labelStatus } });
}

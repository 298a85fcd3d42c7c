// Returns: creation (with idempotency keys), the status machine and its
// operations, notes, list filters and advance-shipping-notice rows
// (decisions.md "Returns"). Every change runs in one transaction that locks the
// return (and, where quantities are claimed, its order) first, checks, and only
// then writes, so a refused operation leaves nothing behind.
import crypto from 'node:crypto';
import { Prisma, ReturnStatus as RETURN_STATUSES, type ReturnOutcome, type ReturnStatus, type ReturnType } from '../generated/prisma/client.ts';
import { countryCode, currencyCode, InputIssues, optionalText, requiredText } from './inputChecks.ts';
import { isEmail, normalizeEmail } from './customers.ts';
import { Conflict, Invalid, isDomainError, isUniqueViolation, NotFound, UnprocessableState, type FieldIssue } from './errors.ts';
import { recordEvent } from './events.ts';
import { chargeReturnProcessingFee } from './invoices.ts';
import { newId, newReturnId } from './ids.ts';
import { currencyExponent, Decimal, type DecimalValue } from './money.ts';
import { searchWhere } from './search/kinds.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';
import type { Plain } from '../db/reads/plain.ts';
import type { Reads } from '../db/reads/reader.ts';

// ---------------------------------------------------------------- the status machine

export type ReturnOperation = 'process' | 'flag' | 'reject' | 'reset' | 'delete' | 'remove' | 'note';

/** Statuses in which a return is still being handled. */
const IN_PROGRESS: readonly ReturnStatus[] = ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged'];

/**
 * The statuses each operation may start from. complete and rejected are final: only a
 * reset leaves them; a deleted return takes no operation at all.
 */
export const ALLOWED_FROM: Record<ReturnOperation, readonly ReturnStatus[]> = {
  process: IN_PROGRESS,
  flag: IN_PROGRESS.filter((status) => status !== 'flagged'),
  reject: IN_PROGRESS,
  reset: [...IN_PROGRESS, 'complete', 'rejected'],
  delete: [...IN_PROGRESS, 'complete', 'rejected'],
  remove: IN_PROGRESS,
  note: [...IN_PROGRESS, 'complete', 'rejected'],
};

type StatusOperation = Extract<ReturnOperation, 'process' | 'flag' | 'reject' | 'reset' | 'delete'>;

/** Where each status-changing operation leads. */
export const TARGET_STATUS: Record<StatusOperation, ReturnStatus> = {
  process: 'complete',
  flag: 'flagged',
  reject: 'rejected',
  reset: 'open',
  delete: 'deleted',
};

/**
 * The statuses a return can be in through this service, in the enum's order: a new return
 * starts open (where a reset leads too), and each status-changing operation leads to its
 * target. The others (in_transit, delivered, needs_review, in_review) only arrive with data
 * written outside the service.
 */
export const REACHABLE_STATUSES: readonly ReturnStatus[] = Object.values(RETURN_STATUSES).filter((status) =>
  Object.values(TARGET_STATUS).includes(status),
);

/** Returns in these statuses no longer claim the ordered quantities of their items. */
const RELEASED: ReturnStatus[] = ['rejected', 'deleted'];

export function canApply(operation: ReturnOperation, status: ReturnStatus): boolean {
  return ALLOWED_FROM[operation].includes(status);
}

/** The operations a return in `status` takes, in ALLOWED_FROM's order: what a page may offer. */
export function allowedOperations(status: ReturnStatus): ReturnOperation[] {
  return (Object.keys(ALLOWED_FROM) as ReturnOperation[]).filter((operation) => canApply(operation, status));
}

function assertAllowed(operation: ReturnOperation, target: { label: string; status: ReturnStatus }): void {
  if (!canApply(operation, target.status)) {
    throw new UnprocessableState(`${target.label} is ${target.status}: ${operation} is not allowed in that status`);
  }
}

// ---------------------------------------------------------------- money of a returned line

/** What computing a returned line's amounts reads; usable as a Prisma `select` on ReturnItem. */
export const ITEM_AMOUNT_SELECT = {
  quantity: true,
  unitPrice: true,
  return: { select: { currency: true } },
  orderLineItem: {
    select: {
      price: true,
      discount: true,
      quantity: true,
      order: { select: { currency: true, totalTax: true, subtotalPrice: true } },
    },
  },
} satisfies Prisma.ReturnItemSelect;

type ItemAmountRow = Prisma.ReturnItemGetPayload<{ select: typeof ITEM_AMOUNT_SELECT }>;

type ItemAmountFields = Omit<ItemAmountRow, 'unitPrice' | 'return'> & Partial<Pick<ItemAmountRow, 'unitPrice' | 'return'>>;

/**
 * An ordered item needs only its line; an imported one (no line) its unit price and its
 * return's currency. As Prisma answers it inside a rule, or as `reads` answers it to a resolver.
 */
export type ItemAmountSource = ItemAmountFields | Plain<ItemAmountFields>;

export interface ReturnItemAmounts {
  currency: string;
  /** Price of one unit as ordered. */
  unitPrice: DecimalValue;
  /** The line's discount, pro-rated to the returned units. */
  discount: DecimalValue;
  /** The order's tax, pro-rated by the returned value's share of the order subtotal. */
  tax: DecimalValue;
  /** What returning these units is worth: price less discount plus tax. */
  amount: DecimalValue;
}

function roundTo(value: DecimalValue, currency: string): DecimalValue {
  return value.toDecimalPlaces(currencyExponent(currency), Decimal.ROUND_HALF_UP);
}

/**
 * The price of one unit as ordered, and its currency, without the arithmetic of
 * returnItemAmounts: a page of returns shows every item's unit price, and nothing else of it.
 */
export function returnItemUnitPrice(item: ItemAmountSource): { unitPrice: DecimalValue | string; currency: string } {
  const line = item.orderLineItem;
  if (line) return { unitPrice: line.price ?? '0', currency: line.order.currency };
  if (!item.return) throw new Error('an item without an order line needs its return selected');
  return { unitPrice: item.unitPrice ?? '0', currency: item.return.currency };
}

/**
 * An ordered item is worth its line's price less its share of the line's discount plus its
 * share of the order's tax; an imported item (no order) its unit price, nothing deducted or added.
 */
export function returnItemAmounts(item: ItemAmountSource): ReturnItemAmounts {
  const { unitPrice: price, currency } = returnItemUnitPrice(item);
  const unitPrice = new Decimal(price);
  const line = item.orderLineItem;
  if (!line) {
    const zero = new Decimal(0);
    return { currency, unitPrice, discount: zero, tax: zero, amount: unitPrice.times(item.quantity) };
  }
  const { totalTax, subtotalPrice } = line.order;
  const gross = unitPrice.times(item.quantity);
  const discount = roundTo(new Decimal(line.discount ?? 0).times(item.quantity).dividedBy(Math.max(line.quantity, 1)), currency);
  const net = gross.minus(discount);
  const tax =
    totalTax !== null && subtotalPrice !== null && new Decimal(subtotalPrice).greaterThan(0)
      ? roundTo(new Decimal(totalTax).times(net).dividedBy(subtotalPrice), currency)
      : new Decimal(0);
  return { currency, unitPrice, discount, tax, amount: net.plus(tax) };
}

/**
 * What the customer gets back for an item: the amount recorded when the return was
 * processed, the expected amount before that; nothing for exchange and keep outcomes.
 * `amounts` gives the item's amounts when a caller already has them.
 */
export function itemRefund(
  item: ItemAmountSource & { outcome: ReturnOutcome; refundAmount: DecimalValue | string | null },
  amounts: () => ReturnItemAmounts = () => returnItemAmounts(item),
): DecimalValue {
  if (item.outcome !== 'refund' && item.outcome !== 'credit') return new Decimal(0);
  return item.refundAmount === null ? amounts().amount : new Decimal(item.refundAmount);
}

export interface ReturnTotals {
  /** Units at their price, before discounts and tax. */
  product: DecimalValue;
  discount: DecimalValue;
  tax: DecimalValue;
  /** product - discount + tax: the sum of the items' amounts. */
  total: DecimalValue;
}

/** The parts of the return's total, over the items still on it. */
export function returnTotals(items: (ItemAmountSource & { removedAt: Date | string | null })[]): ReturnTotals {
  const zero = new Decimal(0);
  return items
    .filter((item) => item.removedAt === null)
    .reduce<ReturnTotals>(
      (sums, item) => {
        const amounts = returnItemAmounts(item);
        return {
          product: sums.product.plus(amounts.unitPrice.times(item.quantity)),
          discount: sums.discount.plus(amounts.discount),
          tax: sums.tax.plus(amounts.tax),
          total: sums.total.plus(amounts.amount),
        };
      },
      { product: zero, discount: zero, tax: zero, total: zero },
    );
}

export interface RefundSplit {
  refund: DecimalValue;
  /** The item's tax in the share the refund pays of its amount (all of it for a full refund). */
  tax: DecimalValue;
  /** refund - tax. */
  item: DecimalValue;
}

/** An item's refund and its tax and item parts, so that refund = refunded item + refunded tax. */
export function itemRefundSplit(
  item: ItemAmountSource & { outcome: ReturnOutcome; refundAmount: DecimalValue | string | null },
  amounts: ReturnItemAmounts,
): RefundSplit {
  const refund = itemRefund(item, () => amounts);
  const tax = refund.isZero() || amounts.amount.isZero() ? new Decimal(0) : roundTo(amounts.tax.times(refund).dividedBy(amounts.amount), amounts.currency);
  return { refund, tax, item: refund.minus(tax) };
}

/** What processing records for one item: its refund or credit, nothing for the other outcomes and for a rejected item. */
export interface ItemProcessing {
  itemId: string;
  outcome: ReturnOutcome;
  rejected: boolean;
  amount: DecimalValue;
}

export interface ProcessingAmounts {
  refund: DecimalValue;
  storeCredit: DecimalValue;
  items: ItemProcessing[];
  /** Every item rejected: processing rejects the return instead, recording nothing. */
  rejectsReturn: boolean;
}

/**
 * What processing the items still on a return records, with `rejected` (ids of items among
 * them) taken off: one computation for processing itself and for what a merchant is shown
 * before confirming it.
 */
export function processingAmounts(
  items: (ItemAmountSource & { id: string; outcome: ReturnOutcome })[],
  rejected: ReadonlySet<string> = new Set(),
  chosen: ReadonlyMap<string, ReturnOutcome> = new Map(),
): ProcessingAmounts {
  const rejectsReturn = items.length > 0 && items.every((item) => rejected.has(item.id));
  let refund = new Decimal(0);
  let storeCredit = new Decimal(0);
  const rows = items.map((item) => {
    const outcome = chosen.get(item.id) ?? item.outcome;
    const counted = !rejectsReturn && !rejected.has(item.id) && (outcome === 'refund' || outcome === 'credit');
    const amount = counted ? returnItemAmounts(item).amount : new Decimal(0);
    if (counted && outcome === 'refund') refund = refund.plus(amount);
    if (counted && outcome === 'credit') storeCredit = storeCredit.plus(amount);
    return { itemId: item.id, outcome, rejected: rejectsReturn || rejected.has(item.id), amount };
  });
  return { refund, storeCredit, items: rows, rejectsReturn };
}

/**
 * The outcomes processing may give an item instead of the one its return asked for: refund and
 * store credit both pay the item's amount, so the merchant may pay it the other way. An exchange
 * or a keep is no payment (and its item cannot even be removed): it stays as asked.
 */
export const SWITCHABLE_OUTCOMES: readonly ReturnOutcome[] = ['refund', 'credit'];

/** One item's outcome as processing is asked to record it. */
export interface OutcomeChoice {
  itemId: string;
  outcome: ReturnOutcome;
}

/** Why each choice cannot be made: an item not on the return, or a switch outside refund and credit. */
function outcomeChoiceIssues(label: string, items: readonly { id: string; outcome: ReturnOutcome }[], choices: readonly OutcomeChoice[], path: (index: number) => string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  choices.forEach((choice, index) => {
    const item = items.find((candidate) => candidate.id === choice.itemId);
    if (!item) issues.push({ path: path(index), message: `${choice.itemId} is not an item on ${label}` });
    else if (choice.outcome !== item.outcome && !(SWITCHABLE_OUTCOMES.includes(choice.outcome) && SWITCHABLE_OUTCOMES.includes(item.outcome))) {
      issues.push({ path: path(index), message: `item ${choice.itemId} asks for ${item.outcome}: processing may only switch between refund and credit` });
    }
  });
  return issues;
}

/**
 * What processing the return would record now, with `rejectItemIds` rejected and the items of
 * `outcomes` given those outcomes; refused as processing would refuse it.
 */
export function previewProcessing(
  ret: { number: number; status: ReturnStatus; items: (ItemAmountSource & { id: string; outcome: ReturnOutcome })[] },
  rejectItemIds: readonly string[],
  outcomes: readonly OutcomeChoice[] = [],
): ProcessingAmounts {
  const label = `return #${ret.number}`;
  const unknown = rejectItemIds.filter((id) => !ret.items.some((item) => item.id === id));
  const issues: FieldIssue[] = [
    ...unknown.map((id) => ({ path: 'rejectItemIds', message: `${id} is not an item on ${label}` })),
    ...outcomeChoiceIssues(label, ret.items, outcomes, (index) => `outcomes.${index}`),
  ];
  if (issues.length > 0) throw Invalid.of(issues);
  assertAllowed('process', { label, status: ret.status });
  return processingAmounts(ret.items, new Set(rejectItemIds), new Map(outcomes.map((choice) => [choice.itemId, choice.outcome])));
}

// ---------------------------------------------------------------- facts about a return for reports

/** A time as reads answer it (text) or as Prisma does (Date). */
type Instant = Date | string;

const time = (value: Instant) => new Date(value).getTime();

/** When the return last changed after its creation; null while it is as created. */
export function editedAtOf<T extends Instant>(ret: { createdAt: T; updatedAt: T }): T | null {
  return time(ret.updatedAt) > time(ret.createdAt) ? ret.updatedAt : null;
}

/**
 * A return's status history as every reader takes it, oldest first. One shape for all of them
 * (the statusChanges field, closedAt, the notice's rows): a read that selects several of them
 * then brings the history once, in the statement of the return, where differing filters would
 * each cost a statement of their own.
 */
export const STATUS_HISTORY = { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } satisfies Prisma.ReturnStatusChangeFindManyArgs;

/** What closedAtOf reads; usable as a Prisma `select` on Return. */
export const CLOSED_AT_SELECT = {
  status: true,
  statusChanges: { ...STATUS_HISTORY, select: { toStatus: true, createdAt: true } },
} satisfies Prisma.ReturnSelect;

/** When the history (oldest first) last led to `status`; null if it never did. */
export function lastChangeTo<T extends Instant>(history: { toStatus: ReturnStatus; createdAt: T }[], status: ReturnStatus): T | null {
  for (let i = history.length - 1; i >= 0; i--) if (history[i].toStatus === status) return history[i].createdAt;
  return null;
}

/** When a complete return was processed (its latest change to complete); null unless it is complete now. */
export function closedAtOf<T extends Instant>(ret: { status: ReturnStatus; statusChanges: { toStatus: ReturnStatus; createdAt: T }[] }): T | null {
  return ret.status === 'complete' ? lastChangeTo(ret.statusChanges, 'complete') : null;
}

/**
 * Whether the returned units go back to stock where they are received: null without a receiving
 * location; `pending` while the return is handled; `not_restocked` once it is final, because
 * processing records refunds and credit but changes no inventory level.
 */
export function restockStatusOf(ret: { status: ReturnStatus; destinationLocationId: string | null }): 'pending' | 'not_restocked' | null {
  if (ret.destinationLocationId === null) return null;
  return IN_PROGRESS.includes(ret.status) ? 'pending' : 'not_restocked';
}

/** The number in an order's name ("#1001" -> "1001"); null when the name holds none. */
export function orderNumberOf(name: string): string | null {
  return /\d+/.exec(name)?.[0] ?? null;
}

/** What originCountryOf reads; usable as a Prisma `select` on Return. */
export const ORIGIN_COUNTRY_SELECT = { originAddress: true, order: { select: { shippingAddress: true } } } satisfies Prisma.ReturnSelect;

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/**
 * The country the return ships from: its origin address's, else (none given) its order's
 * shipping address's. A two-letter value is the ISO code and gives the English name; other
 * text (an origin address given to returnCreate is stored as sent) is the name, without a code.
 */
export function originCountryOf(ret: { originAddress: unknown; order: { shippingAddress: unknown } | null }): { code: string | null; name: string | null } {
  const countryIn = (address: unknown) =>
    address !== null && typeof address === 'object' && typeof (address as { country?: unknown }).country === 'string'
      ? (address as { country: string }).country.trim()
      : '';
  const given = countryIn(ret.originAddress) || countryIn(ret.order?.shippingAddress);
  if (given === '') return { code: null, name: null };
  if (!/^[A-Za-z]{2}$/.test(given)) return { code: null, name: given };
  const code = given.toUpperCase();
  return { code, name: regionNames.of(code) ?? code };
}

/** What describing a returned item's variant and picture reads; usable as a Prisma `select` on ReturnItem. */
export const ITEM_LOOK_SELECT = {
  variantTitle: true,
  product: { select: { images: { orderBy: [{ position: 'asc' }, { id: 'asc' }], take: 1, select: { url: true } } } },
  orderLineItem: {
    select: {
      imageUrl: true,
      product: {
        select: {
          options: { orderBy: { option: { position: 'asc' } }, select: { value: true } },
          images: { orderBy: [{ position: 'asc' }, { id: 'asc' }], take: 1, select: { url: true } },
        },
      },
    },
  },
} satisfies Prisma.ReturnItemSelect;

type ItemLookSource = Plain<Prisma.ReturnItemGetPayload<{ select: typeof ITEM_LOOK_SELECT }>>;

/** An ordered item's variant is its matched product's option values ("Small / Navy"); an imported one's what the import gave. */
export function itemVariantTitle(item: ItemLookSource): string | null {
  const line = item.orderLineItem;
  if (!line) return item.variantTitle;
  const values = line.product?.options.map((option) => option.value) ?? [];
  return values.length > 0 ? values.join(' / ') : null;
}

/** The line's image as submitted, else the first image of the product the item names. */
export function itemImageUrl(item: ItemLookSource): string | null {
  const line = item.orderLineItem;
  if (line) return line.imageUrl ?? line.product?.images[0]?.url ?? null;
  return item.product?.images[0]?.url ?? null;
}

// ---------------------------------------------------------------- finding a return

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
type LockedReturn = { id: string; storeId: string; number: number; status: ReturnStatus };

async function lockReturn(tx: Tx, storeId: string, ref: ReturnRef) {
  const id = await findReturnId(tx, storeId, ref);
  await tx.$queryRaw`SELECT "id" FROM "Return" WHERE "id" = ${id} FOR UPDATE`;
  const locked = await tx.return.findUniqueOrThrow({ where: { id }, select: LOCKED_SELECT });
  return { ...locked, label: labelOf(ref, locked.number) };
}

async function lockOrder(tx: Tx, storeId: string, orderId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Order" WHERE "id" = ${orderId} AND "storeId" = ${storeId} FOR UPDATE`;
  return rows.length > 0;
}

/** Units of each order line claimed by live returns (removed items and released returns excluded). */
export async function claimedQuantities(tx: Db | Tx, lineIds: string[], exceptReturnId?: string): Promise<Map<string, number>> {
  const rows = await tx.returnItem.groupBy({
    by: ['orderLineItemId'],
    where: {
      orderLineItemId: { in: lineIds },
      removedAt: null,
      return: { status: { notIn: RELEASED }, ...(exceptReturnId ? { id: { not: exceptReturnId } } : {}) },
    },
    _sum: { quantity: true },
  });
  return new Map(rows.flatMap((row) => (row.orderLineItemId ? [[row.orderLineItemId, row._sum.quantity ?? 0] as const] : [])));
}

async function recordChange(
  tx: Tx,
  returnId: string,
  change: { operation: StatusOperation | 'create'; from: ReturnStatus | null; to: ReturnStatus },
): Promise<void> {
  await tx.returnStatusChange.create({
    data: { id: newId('returnStatusChange'), returnId, operation: change.operation, fromStatus: change.from, toStatus: change.to },
  });
}

async function emitUpdated(tx: Tx, target: { id: string; storeId: string; number: number }, data: Record<string, unknown>): Promise<void> {
  await recordEvent(tx, { storeId: target.storeId, topic: 'return.updated', subjectId: target.id, data: { id: target.id, number: target.number, ...data } });
}

// ---------------------------------------------------------------- creation

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

const MAX_REASON_LENGTH = 255;
export const MAX_NOTE_LENGTH = 255;
const MAX_KEY_LENGTH = 255;
const MAX_ITEMS = 250;
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
async function createOnce(
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
    const returnable = line.quantity - (claimed.get(line.id) ?? 0);
    if (item.quantity > returnable) {
      over.push({
        path: `items.${index}.quantity`,
        message: `${item.quantity} requested but only ${Math.max(returnable, 0)} of line item ${line.externalId} can still be returned`,
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
async function recordCreation(
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

async function emitLabel(
  tx: Tx,
  target: { id: string; storeId: string; number: number } & LabelFields,
  topic: 'return_label.created' | 'return_label.updated',
): Promise<void> {
  const { id, number, carrier, trackingNumber, labelStatus } = target;
  // The event's own time (the transaction's), as the label webhook reports it.
  await tx.$executeRaw`UPDATE "Return" SET "labelUpdatedAt" = now() AT TIME ZONE 'UTC' WHERE id = ${id}`;
  await recordEvent(tx, { storeId: target.storeId, topic, subjectId: id, data: { id, number, carrier, trackingNumber, labelStatus } });
}

// ---------------------------------------------------------------- imported returns

export const MAX_IMPORTED_RETURNS = 100;
const IMPORT_OPERATION = 'importReturn';

export interface ImportedReturnItemInput {
  /** Our product id (prd_), as the bulk product upload answered it. */
  productId: string;
  quantity: number;
  /** Overrides of what the product says of itself. */
  sku?: string | null;
  barcode?: string | null;
  productTitle?: string | null;
  variantTitle?: string | null;
  reason?: string | null;
  condition?: string | null;
}

export interface ImportedReturnAddressInput {
  name?: string | null;
  line1: string;
  line2?: string | null;
  city: string;
  state?: string | null;
  postalCode?: string | null;
  country: string;
  phone?: string | null;
}

export interface ImportReturnInput {
  items: ImportedReturnItemInput[];
  customer?: { firstName?: string | null; lastName?: string | null; email?: string | null } | null;
  /** The merchant's own return/RMA id. */
  externalReferenceId?: string | null;
  trackingNumber?: string | null;
  carrier?: string | null;
  /** Becomes the return's first note. */
  notes?: string | null;
  idempotencyKey?: string | null;
  /** ISO 4217; USD when omitted. */
  currency?: string | null;
  /** Where the customer ships the return from. */
  shippingAddress?: ImportedReturnAddressInput | null;
  /** Where the return goes; the store's default location when omitted. */
  merchantAddress?: ImportedReturnAddressInput | null;
}

export type ImportedReturnResult = { status: 'created'; returnId: string; replayed: boolean } | { status: 'error'; error: string };

function importedAddress(issues: InputIssues, path: string, input: ImportedReturnAddressInput | null | undefined) {
  if (!input) return null;
  return {
    name: optionalText(issues, `${path}.name`, input.name ?? null) ?? null,
    line1: requiredText(issues, `${path}.line1`, input.line1),
    line2: optionalText(issues, `${path}.line2`, input.line2 ?? null) ?? null,
    city: requiredText(issues, `${path}.city`, input.city),
    state: optionalText(issues, `${path}.state`, input.state ?? null) ?? null,
    postalCode: optionalText(issues, `${path}.postalCode`, input.postalCode ?? null, 32) ?? null,
    country: countryCode(issues, `${path}.country`, input.country) ?? null,
    phone: optionalText(issues, `${path}.phone`, input.phone ?? null, 32) ?? null,
  };
}

/** Every problem of one imported return's values, or its columns. */
function validateImport(input: ImportReturnInput) {
  const issues = new InputIssues();
  if (input.items.length === 0) issues.add('products', 'must list at least one product');
  if (input.items.length > MAX_ITEMS) issues.add('products', `must list at most ${MAX_ITEMS} products`);
  const items = input.items.map((item, i) => {
    const path = `products.${i}`;
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1) issues.add(`${path}.quantity`, 'must be an integer of at least 1');
    return {
      productId: requiredText(issues, `${path}.productId`, item.productId),
      quantity: item.quantity,
      sku: optionalText(issues, `${path}.sku`, item.sku ?? null) ?? null,
      barcode: optionalText(issues, `${path}.barcode`, item.barcode ?? null) ?? null,
      title: optionalText(issues, `${path}.productTitle`, item.productTitle ?? null, 1000) ?? null,
      variantTitle: optionalText(issues, `${path}.variantTitle`, item.variantTitle ?? null, 1000) ?? null,
      reason: optionalText(issues, `${path}.reason`, item.reason ?? null, MAX_REASON_LENGTH) ?? null,
      condition: optionalText(issues, `${path}.condition`, item.condition ?? null) ?? null,
    };
  });
  const email = optionalText(issues, 'customer.email', input.customer?.email ?? null);
  if (email && !isEmail(normalizeEmail(email))) issues.add('customer.email', 'must be a valid e-mail address');
  const notes = optionalText(issues, 'notes', input.notes ?? null, MAX_NOTE_LENGTH) ?? null;
  const idempotencyKey = optionalText(issues, 'idempotencyKey', input.idempotencyKey ?? null, MAX_KEY_LENGTH) ?? null;
  const columns = {
    externalReferenceId: optionalText(issues, 'externalReferenceId', input.externalReferenceId ?? null) ?? null,
    trackingNumber: optionalText(issues, 'trackingNumber', input.trackingNumber ?? null) ?? null,
    carrier: optionalText(issues, 'carrier', input.carrier ?? null) ?? null,
    currency: currencyCode(issues, 'currency', input.currency) ?? 'USD',
    customerEmail: email ? normalizeEmail(email) : null,
    customerFirstName: optionalText(issues, 'customer.firstName', input.customer?.firstName ?? null) ?? null,
    customerLastName: optionalText(issues, 'customer.lastName', input.customer?.lastName ?? null) ?? null,
  };
  const origin = importedAddress(issues, 'shippingAddress', input.shippingAddress);
  const destination = importedAddress(issues, 'merchantAddress', input.merchantAddress);
  issues.throwIfAny();
  return { items, notes, idempotencyKey, columns, origin, destination };
}

// `ReturnType` names the return's type here (the Prisma enum), so the checked input's type is inferred by hand.
type ValidImport = typeof validateImport extends (input: ImportReturnInput) => infer Valid ? Valid : never;

async function insertImportedReturn(tx: Tx, storeId: string, id: string, input: ValidImport): Promise<void> {
  const products = await tx.product.findMany({ where: { storeId, id: { in: input.items.map((item) => item.productId) } } });
  const issues = new InputIssues();
  input.items.forEach((item, i) => {
    if (!products.some((p) => p.id === item.productId)) issues.add(`products.${i}.productId`, `product ${item.productId} not found`);
  });
  if (issues.list.length > 0) throw new NotFound(issues.list.map((i) => `${i.path}: ${i.message}`).join('; '), { issues: issues.list });
  const store = await tx.store.findUniqueOrThrow({ where: { id: storeId }, select: { defaultLocationId: true } });
  const created = await tx.return.create({
    data: {
      id,
      storeId,
      ...input.columns,
      destinationLocationId: input.destination ? null : store.defaultLocationId,
      destinationAddress: input.destination ?? Prisma.DbNull,
      originAddress: input.origin ?? Prisma.DbNull,
      ...(input.notes ? { notes: { create: { id: newId('returnNote'), content: input.notes } } } : {}),
      items: {
        create: input.items.map((item, position) => {
          const product = products.find((p) => p.id === item.productId)!;
          return {
            id: newId('returnItem'),
            position,
            productId: product.id,
            quantity: item.quantity,
            reason: item.reason,
            condition: item.condition,
            title: item.title ?? product.title,
            variantTitle: item.variantTitle,
            sku: item.sku ?? product.sku,
            barcode: item.barcode ?? barcodeOf(product),
            unitPrice: product.price,
          };
        }),
      },
    },
    select: { id: true, storeId: true, number: true, status: true, type: true, carrier: true, trackingNumber: true, labelStatus: true },
  });
  await recordCreation(tx, storeId, created, null);
}

/**
 * Imports returns created outside (a warehouse scan, an ERP ...): no order, items naming the
 * store's products. Each return is created in its own transaction, with its own result, so
 * one bad return leaves the others; its idempotency key makes a retry answer the return made.
 */
export async function importReturns(db: Db, storeId: string, inputs: ImportReturnInput[]): Promise<ImportedReturnResult[]> {
  if (inputs.length < 1 || inputs.length > MAX_IMPORTED_RETURNS) {
    throw new Invalid(`must list 1 to ${MAX_IMPORTED_RETURNS} returns`, { path: 'returns' });
  }
  const results: ImportedReturnResult[] = [];
  for (const input of inputs) {
    try {
      const valid = validateImport(input);
      const hash = crypto.createHash('sha256').update(JSON.stringify(valid)).digest('hex');
      const created = await createOnce(db, storeId, valid.idempotencyKey, { operation: IMPORT_OPERATION, hash }, (tx, id) => insertImportedReturn(tx, storeId, id, valid));
      results.push({ status: 'created', returnId: created.id, replayed: created.replayed });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      results.push({ status: 'error', error: error.message });
    }
  }
  return results;
}

// ---------------------------------------------------------------- operations

async function changeStatus(
  tx: Tx,
  target: { id: string; storeId: string; number: number; status: ReturnStatus },
  operation: StatusOperation,
  data: Omit<Prisma.ReturnUpdateInput, 'status'> = {},
): Promise<void> {
  const to = TARGET_STATUS[operation];
  await tx.return.update({ where: { id: target.id }, data: { ...data, status: to } });
  await recordChange(tx, target.id, { operation, from: target.status, to });
  await emitUpdated(tx, target, { status: to, previousStatus: target.status, operation });
}

/** Completes the locked return, recording what is refunded and what is credited. */
async function completeReturn(tx: Tx, target: LockedReturn): Promise<void> {
  const items = await tx.returnItem.findMany({
    where: { returnId: target.id, removedAt: null },
    select: { id: true, outcome: true, ...ITEM_AMOUNT_SELECT },
  });
  const amounts = processingAmounts(items);
  for (const item of amounts.items) {
    if (item.outcome !== 'refund' && item.outcome !== 'credit') continue;
    await tx.returnItem.update({ where: { id: item.itemId }, data: { refundAmount: item.amount } });
  }
  await changeStatus(tx, target, 'process', { totalRefund: amounts.refund, totalStoreCredit: amounts.storeCredit });
}

/** Completes the return, recording what is refunded and what is credited. */
export async function processReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('process', target);
    await completeReturn(tx, target);
    return target.id;
  });
}

/**
 * Processes the return item by item: the rejected items are taken off the return (and
 * released), the others completed with their refunds, each paid as its decision's outcome says
 * when one is given (refund or credit, for an item that asked for either; SWITCHABLE_OUTCOMES);
 * rejecting every item rejects the return. Every item of the return must be named, once.
 */
export async function processReturnItems(
  db: Db | Tx,
  storeId: string,
  ref: ReturnRef,
  decisions: { itemId: string; reject: boolean; outcome?: ReturnOutcome | null }[],
): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    const live = target.items.filter((item) => item.removedAt === null);
    const issues: FieldIssue[] = [];
    const seen = new Set<string>();
    decisions.forEach((decision, index) => {
      if (!live.some((item) => item.id === decision.itemId)) issues.push({ path: `products.${index}._id`, message: `${decision.itemId} is not an item of ${target.label}` });
      else if (seen.has(decision.itemId)) issues.push({ path: `products.${index}._id`, message: `${decision.itemId} is listed more than once` });
      seen.add(decision.itemId);
    });
    const missing = live.filter((item) => !seen.has(item.id));
    if (missing.length > 0) issues.push({ path: 'products', message: `every item must be named; missing ${missing.map((item) => item.id).join(', ')}` });
    const choices = decisions.flatMap((decision, index) => (decision.outcome ? [{ index, itemId: decision.itemId, outcome: decision.outcome, reject: decision.reject }] : []));
    for (const choice of choices.filter((c) => c.reject)) issues.push({ path: `products.${choice.index}.outcome`, message: `item ${choice.itemId} is rejected: it gets no outcome` });
    const kept = choices.filter((choice) => !choice.reject);
    issues.push(...outcomeChoiceIssues(target.label, live, kept, (index) => `products.${kept[index].index}.outcome`));
    if (issues.length > 0) throw Invalid.of(issues);
    assertAllowed('process', target);
    const rejected = decisions.filter((decision) => decision.reject).map((decision) => decision.itemId);
    if (rejected.length === live.length) {
      await changeStatus(tx, target, 'reject');
      return target.id;
    }
    if (rejected.length > 0) await tx.returnItem.updateMany({ where: { id: { in: rejected } }, data: { removedAt: new Date() } });
    for (const choice of kept) {
      const asked = live.find((item) => item.id === choice.itemId)!.outcome;
      if (choice.outcome !== asked) await tx.returnItem.update({ where: { id: choice.itemId }, data: { outcome: choice.outcome, requestedOutcome: asked } });
    }
    await completeReturn(tx, target);
    return target.id;
  });
}

export async function flagReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('flag', target);
    await changeStatus(tx, target, 'flag');
    return target.id;
  });
}

/** The native reject (the compatibility interface's "close"): the items are released. */
export async function rejectReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('reject', target);
    await changeStatus(tx, target, 'reject');
    return target.id;
  });
}

/**
 * The native reset (the compatibility interface's "cancel"): back to open with the
 * items the return was created with and nothing refunded. Refused when the order's
 * units it would claim again are meanwhile claimed by another return.
 */
export async function resetReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('reset', target);
    // An imported return claims no order's units: nothing to check.
    if (target.orderId) await lockOrder(tx, storeId, target.orderId);
    const lines = await tx.orderLineItem.findMany({
      where: { id: { in: target.items.flatMap((item) => (item.orderLineItemId ? [item.orderLineItemId] : [])) } },
      select: { id: true, externalId: true, quantity: true },
    });
    const claimed = await claimedQuantities(tx, lines.map((line) => line.id), target.id);
    for (const line of lines) {
      const wanted = target.items.filter((item) => item.orderLineItemId === line.id).reduce((sum, item) => sum + item.quantity, 0);
      if (wanted > line.quantity - (claimed.get(line.id) ?? 0)) {
        throw new UnprocessableState(`${target.label} cannot be reset: line item ${line.externalId} is now claimed by another return`);
      }
    }
    await tx.returnItem.updateMany({ where: { returnId: target.id }, data: { removedAt: null, refundAmount: null } });
    // An item processing paid the other way than asked asks again as it did.
    for (const item of await tx.returnItem.findMany({ where: { returnId: target.id, requestedOutcome: { not: null } }, select: { id: true, requestedOutcome: true } })) {
      await tx.returnItem.update({ where: { id: item.id }, data: { outcome: item.requestedOutcome!, requestedOutcome: null } });
    }
    await changeStatus(tx, target, 'reset', { totalRefund: 0, totalStoreCredit: 0 });
    return target.id;
  });
}

/** A deleted return takes no further operation and no longer claims its items. */
export async function deleteReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('delete', target);
    await changeStatus(tx, target, 'delete');
    return target.id;
  });
}

/** The statuses a caller may set directly (the reference's `return-status-update.schema`). */
export const SETTABLE_STATUSES = ['complete', 'open', 'flagged', 'rejected', 'deleted'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

/**
 * Setting a status runs the operation leading there, so every door shares one state
 * machine: complete processes the return (every item completed, refunds recorded), open
 * resets it (processed or rejected items back to open, nothing refunded; refunds already
 * made are not reversed), flagged flags, rejected rejects, deleted deletes.
 */
export async function setReturnStatus(db: Db | Tx, storeId: string, ref: ReturnRef, status: SettableStatus): Promise<string> {
  switch (status) {
    case 'complete':
      return processReturn(db, storeId, ref);
    case 'open':
      return resetReturn(db, storeId, ref);
    case 'flagged':
      return flagReturn(db, storeId, ref);
    case 'rejected':
      return rejectReturn(db, storeId, ref);
    case 'deleted':
      return deleteReturn(db, storeId, ref);
    default:
      throw new Invalid(`status must be one of ${SETTABLE_STATUSES.join(', ')}`, { path: 'status' });
  }
}

/** Drops some items (refund or credit outcomes only); the last remaining item stays. */
export async function removeReturnItems(db: Db | Tx, storeId: string, ref: ReturnRef, itemIds: string[]): Promise<string> {
  const ids = [...new Set(itemIds.map((id) => id.trim()).filter((id) => id !== ''))];
  if (ids.length === 0) throw new Invalid('name at least one line item to remove', { path: 'lineItemIds' });
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    const unknown = ids.filter((id) => !target.items.some((item) => item.id === id));
    if (unknown.length > 0) {
      throw Invalid.of(unknown.map((id) => ({ path: 'lineItemIds', message: `${id} is not a line item of ${target.label}` })));
    }
    assertAllowed('remove', target);
    const chosen = target.items.filter((item) => ids.includes(item.id));
    const gone = chosen.filter((item) => item.removedAt !== null);
    if (gone.length > 0) {
      throw new UnprocessableState(`line item ${gone.map((item) => item.id).join(', ')} of ${target.label} was already removed`);
    }
    const kept = chosen.filter((item) => item.outcome !== 'refund' && item.outcome !== 'credit');
    if (kept.length > 0) {
      throw new UnprocessableState(
        `line item ${kept.map((item) => `${item.id} (${item.outcome})`).join(', ')} cannot be removed: only refund or credit items can be removed`,
      );
    }
    const remaining = target.items.filter((item) => item.removedAt === null && !ids.includes(item.id));
    if (remaining.length === 0) {
      throw new UnprocessableState(`the last remaining line item of ${target.label} cannot be removed`);
    }
    const now = new Date();
    await tx.returnItem.updateMany({ where: { id: { in: ids } }, data: { removedAt: now } });
    await tx.return.update({ where: { id: target.id }, data: { updatedAt: now } });
    await emitUpdated(tx, target, { status: target.status, operation: 'remove', removedItemIds: ids });
    return target.id;
  });
}


export async function addReturnNote(db: Db | Tx, storeId: string, ref: ReturnRef, content: string): Promise<{ returnId: string; noteId: string }> {
  if (typeof content !== 'string' || content.trim().length === 0 || content.length > MAX_NOTE_LENGTH) {
    throw new Invalid(`content must be 1 to ${MAX_NOTE_LENGTH} characters`, { path: 'content' });
  }
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('note', target);
    const noteId = newId('returnNote');
    await tx.returnNote.create({ data: { id: noteId, returnId: target.id, content } });
    await tx.return.update({ where: { id: target.id }, data: { updatedAt: new Date() } });
    await emitUpdated(tx, target, { status: target.status, operation: 'note', noteId });
    return { returnId: target.id, noteId };
  });
}

export interface SetReturnLabelInput extends ReturnLabelInput {
  /** The label's shipment status as the carrier reports it (free text, e.g. in_transit). */
  labelStatus?: string | null;
}

/**
 * Gives the return a shipping label, or changes the one it has: its tracking number, carrier,
 * URLs and status are replaced by the input's. Records return.updated when anything changed,
 * and return_label.created for a return that had no tracking number, else return_label.updated
 * when the carrier, tracking number or label status changed.
 */
export async function setReturnLabel(db: Db | Tx, storeId: string, ref: ReturnRef, input: SetReturnLabelInput): Promise<string> {
  const issues = new InputIssues();
  const wanted = {
    trackingNumber: requiredText(issues, 'label.trackingNumber', input.trackingNumber),
    carrier: optionalText(issues, 'label.carrier', input.carrier ?? null) ?? null,
    trackingUrl: optionalText(issues, 'label.trackingUrl', input.trackingUrl ?? null, 2048) ?? null,
    labelUrl: optionalText(issues, 'label.postageLabelUrl', input.postageLabelUrl ?? null, 2048) ?? null,
    labelStatus: optionalText(issues, 'labelStatus', input.labelStatus ?? null) ?? null,
  };
  issues.throwIfAny();
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    // A label is bookkeeping like a note: any status but deleted takes one.
    if (!canApply('note', target.status)) throw new UnprocessableState(`${target.label} is ${target.status}: a label cannot be set in that status`);
    const before = await tx.return.findUniqueOrThrow({
      where: { id: target.id },
      select: { carrier: true, trackingNumber: true, labelStatus: true, trackingUrl: true, labelUrl: true },
    });
    const changed = (Object.keys(wanted) as (keyof typeof wanted)[]).filter((field) => before[field] !== wanted[field]);
    if (changed.length === 0) return target.id;
    await tx.return.update({ where: { id: target.id }, data: { ...wanted, updatedAt: new Date() } });
    await emitUpdated(tx, target, { status: target.status, operation: 'label', changed });
    const reported = changed.some((field) => field === 'carrier' || field === 'trackingNumber' || field === 'labelStatus');
    if (before.trackingNumber === null) await emitLabel(tx, { ...target, ...wanted }, 'return_label.created');
    else if (reported) await emitLabel(tx, { ...target, ...wanted }, 'return_label.updated');
    return target.id;
  });
}

const MAX_TAGS = 50;

/** Replaces the return's tags; each must be a tag the store defines (see returnTags.ts). */
export async function setReturnTags(db: Db | Tx, storeId: string, ref: ReturnRef, tags: string[]): Promise<string> {
  const wanted = [...new Set(tags)];
  if (wanted.length > MAX_TAGS) throw new Invalid(`tags must list at most ${MAX_TAGS} tags`, { path: 'tags' });
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    const defined = new Set((await tx.returnTag.findMany({ where: { storeId, name: { in: wanted } }, select: { name: true } })).map((t) => t.name));
    const issues = tags.flatMap((name, index) => (defined.has(name) ? [] : [{ path: `tags.${index}`, message: `return tag "${name}" is not defined; create it first` }]));
    if (issues.length > 0) throw Invalid.of(issues);
    await tx.return.update({ where: { id: target.id }, data: { tags: wanted, updatedAt: new Date() } });
    await emitUpdated(tx, target, { status: target.status, operation: 'tags', tags: wanted });
    return target.id;
  });
}

/** Adds one tag the store defines to the return's tags; a return that has it already is left as it is. */
export async function addReturnTag(db: Db | Tx, storeId: string, ref: ReturnRef, tag: string): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    const { tags } = await tx.return.findUniqueOrThrow({ where: { id: target.id }, select: { tags: true } });
    if (tags.includes(tag)) return target.id;
    return setReturnTags(tx, storeId, { id: target.id }, [...tags, tag]);
  });
}

// ---------------------------------------------------------------- lists

export interface ReturnListFilters {
  statuses?: readonly ReturnStatus[] | null;
  /** Inclusive. */
  updatedAtMin?: Date | null;
  /** Exclusive. */
  updatedAtMax?: Date | null;
  /** Inclusive. */
  createdAtMin?: Date | null;
  /** Exclusive. */
  createdAtMax?: Date | null;
  orderName?: string | null;
  /** The search syntax of src/domain/search. */
  query?: string | null;
}

function range(min: Date | null | undefined, max: Date | null | undefined): Prisma.DateTimeFilter | undefined {
  if (!min && !max) return undefined;
  return { ...(min ? { gte: min } : {}), ...(max ? { lt: max } : {}) };
}

export function returnListWhere(storeId: string, filters: ReturnListFilters): Prisma.ReturnWhereInput {
  const where: Prisma.ReturnWhereInput = { storeId };
  if (filters.statuses && filters.statuses.length > 0) where.status = { in: [...filters.statuses] };
  const updatedAt = range(filters.updatedAtMin, filters.updatedAtMax);
  if (updatedAt) where.updatedAt = updatedAt;
  const createdAt = range(filters.createdAtMin, filters.createdAtMax);
  if (createdAt) where.createdAt = createdAt;
  // The store too, so the order is found by its (storeId, name) index.
  if (filters.orderName) where.order = { storeId, name: filters.orderName };
  const search = searchWhere<Prisma.ReturnWhereInput>('returns', storeId, filters.query);
  return search ? { AND: [where, search] } : where;
}

/** A selection for the rows a list hands back (plugin-prisma plans it from the GraphQL query). */
export interface RowQuery {
  select?: Prisma.ReturnSelect;
  include?: Prisma.ReturnInclude;
}

/** One page of a keyset walk: the cursor condition, the order and the size. */
export interface ReturnPage {
  where: Prisma.ReturnWhereInput;
  orderBy: Prisma.ReturnOrderByWithRelationInput[];
  take: number;
}

/**
 * How many returns of the store each status holds among those matching the filters but their
 * status (one statement): every reachable status, with 0 when none holds it, then any other
 * status some return is in.
 */
/**
 * Every return of a store by status, from the overview's rollup (migration overview_rollups: each
 * write to a return recounts it in its own transaction, per day opened and status), so the tabs of an
 * unfiltered returns queue add up a few thousand rows instead of counting a million returns.
 */
const STATUS_COUNTS_SQL = `
SELECT "key" AS "value", sum("returns")::int AS "count" FROM "ReturnsOverviewRollup"
WHERE "storeId" = $1 AND "figure" = 'status' GROUP BY 1 HAVING sum("returns") <> 0`;

export async function countReturnsByStatus(
  reads: Reads,
  db: Db | Tx,
  storeId: string,
  filters: ReturnListFilters,
): Promise<{ status: ReturnStatus; count: number }[]> {
  const unfiltered = !filters.query && !filters.orderName && !filters.createdAtMin && !filters.createdAtMax && !filters.updatedAtMin && !filters.updatedAtMax;
  const rows = unfiltered
    ? await db.$queryRawUnsafe<{ value: string; count: number }[]>(STATUS_COUNTS_SQL, storeId)
    : await reads.return.countBy('status', { where: returnListWhere(storeId, { ...filters, statuses: null }) });
  const counts = new Map(rows.map((row) => [row.value as ReturnStatus, row.count]));
  const listed = Object.values(RETURN_STATUSES).filter((status) => REACHABLE_STATUSES.includes(status) || counts.has(status));
  return listed.map((status) => ({ status, count: counts.get(status) ?? 0 }));
}

/** The returns of a store matching the filters, one page of them. */
export function listReturns(reads: Reads, storeId: string, filters: ReturnListFilters, page: ReturnPage, query: RowQuery = {}) {
  return reads.return.findMany({ ...query, where: { AND: [returnListWhere(storeId, filters), page.where] }, orderBy: page.orderBy, take: page.take });
}

// ---------------------------------------------------------------- advance shipping notice

export interface AsnRow {
  returnId: string;
  returnNumber: number;
  returnItemId: string;
  /** Null for an imported return. */
  orderId: string | null;
  orderName: string | null;
  /** The number in the order's name; null for an imported return. */
  orderNumber: string | null;
  status: ReturnStatus;
  customerEmail: string | null;
  title: string;
  sku: string | null;
  barcode: string | null;
  /** Exact decimal text. */
  unitPrice: string | null;
  currency: string;
  carrier: string | null;
  trackingNumber: string | null;
  /** The carrier's tracking page; null when none was given. */
  trackingUrl: string | null;
  labelStatus: string | null;
  /** The printable postage label; null when none was given. */
  labelUrl: string | null;
  /** ISO 8601: when the label was given or last changed; null without one. */
  labelUpdatedAt: string | null;
  restockStatus: string | null;
  /** Our id (loc_) and name of the location receiving the return; null when an import named an address instead. */
  receivingLocationId: string | null;
  receivingLocationName: string | null;
  /** An imported return's own return/RMA id, scannable at intake; null otherwise. */
  externalReferenceId: string | null;
  /** The line's reason for return, as given. */
  reason: string | null;
  outcome: ReturnOutcome;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
  /** ISO 8601; null unless the return is complete. */
  closedAt: string | null;
  /** ISO 8601: when the return last became delivered; null if it never was. */
  deliveredAt: string | null;
}

/** A product's scannable code: its UPC, else its first barcode. */
export function barcodeOf(product: { upc: string | null; barcodes: string[] } | null): string | null {
  return product?.upc ?? product?.barcodes[0] ?? null;
}

const CODES = { select: { upc: true, barcodes: true } } as const;

/** What describing a returned item reads; usable as a Prisma `select` on ReturnItem. */
export const ITEM_DESCRIPTION_SELECT = {
  title: true,
  sku: true,
  barcode: true,
  unitPrice: true,
  product: CODES,
  orderLineItem: { select: { title: true, sku: true, price: true, product: CODES } },
} satisfies Prisma.ReturnItemSelect;

type ItemDescriptionSource = Plain<Prisma.ReturnItemGetPayload<{ select: typeof ITEM_DESCRIPTION_SELECT }>>;

/** What the SKU of a returned item reads: less than a whole description (no product codes to load). */
export const ITEM_SKU_SELECT = { sku: true, orderLineItem: { select: { sku: true } } } satisfies Prisma.ReturnItemSelect;

/** An ordered item's SKU is its order line's; an imported one's is what the import recorded. */
export function itemSku(item: { sku: string | null; orderLineItem: { sku: string | null } | null }): string | null {
  return item.orderLineItem ? item.orderLineItem.sku : item.sku;
}

/** An ordered item is described by its order line; an imported one by what the import recorded (its product's values unless overridden). */
export function describeItem(item: ItemDescriptionSource) {
  const line = item.orderLineItem;
  if (line) return { title: line.title, sku: itemSku(item), barcode: barcodeOf(line.product), unitPrice: line.price };
  return { title: item.title ?? '', sku: itemSku(item), barcode: item.barcode ?? barcodeOf(item.product), unitPrice: item.unitPrice };
}

/**
 * The items still on a return, in their order (their order line's, then their own for imported
 * ones), as Return.items lists them. Every selection of a return's items uses these same
 * arguments, so plugin-prisma loads them once with the return, never again per return.
 */
export const ITEMS_ON_RETURN = {
  where: { removedAt: null },
  orderBy: [{ orderLineItem: { position: 'asc' } }, { position: 'asc' }, { id: 'asc' }],
} satisfies Prisma.ReturnItemFindManyArgs;

/** What a return's advance-shipping-notice rows read; usable as a Prisma `select` on Return. */
export const ASN_RETURN_SELECT = {
  id: true,
  number: true,
  status: true,
  currency: true,
  carrier: true,
  trackingNumber: true,
  labelStatus: true,
  labelUpdatedAt: true,
  createdAt: true,
  updatedAt: true,
  trackingUrl: true,
  labelUrl: true,
  customerEmail: true,
  externalReferenceId: true,
  destinationLocationId: true,
  destinationLocation: { select: { name: true } },
  statusChanges: CLOSED_AT_SELECT.statusChanges,
  order: { select: { id: true, name: true, customerEmail: true } },
  items: { ...ITEMS_ON_RETURN, select: { id: true, reason: true, outcome: true, ...ITEM_DESCRIPTION_SELECT } },
} satisfies Prisma.ReturnSelect;

type AsnReturn = Plain<Prisma.ReturnGetPayload<{ select: typeof ASN_RETURN_SELECT }>>;

/** The returns an advance shipping notice lists: created in [from, to), not deleted. */
function asnReturnsWhere(storeId: string, window: { from: Date; to: Date }): Prisma.ReturnWhereInput {
  if (!(window.from < window.to)) throw new Invalid('from must be before to', { path: 'from' });
  return { storeId, status: { not: 'deleted' }, createdAt: { gte: window.from, lt: window.to } };
}

/**
 * The notice's returns, one page of a keyset walk. The walk must order them as listAsnRows does:
 * oldest first, ties by number (the order they were made in).
 */
export function listAsnReturns(reads: Reads, storeId: string, window: { from: Date; to: Date }, page: ReturnPage, query: RowQuery = {}) {
  return reads.return.findMany({ ...query, where: { AND: [asnReturnsWhere(storeId, window), page.where] }, orderBy: page.orderBy, take: page.take });
}

/** One row per line item still on the return, in the order of its items. */
export function asnRowsOf(ret: AsnReturn): AsnRow[] {
  const closedAt = closedAtOf(ret);
  const deliveredAt = lastChangeTo(ret.statusChanges, 'delivered');
  return ret.items.map((item) => ({
    returnId: ret.id,
    returnNumber: ret.number,
    returnItemId: item.id,
    orderId: ret.order?.id ?? null,
    orderName: ret.order?.name ?? null,
    orderNumber: ret.order ? orderNumberOf(ret.order.name) : null,
    status: ret.status,
    customerEmail: ret.order ? ret.order.customerEmail : ret.customerEmail,
    ...describeItem(item),
    currency: ret.currency,
    carrier: ret.carrier,
    trackingNumber: ret.trackingNumber,
    trackingUrl: ret.trackingUrl,
    labelStatus: ret.labelStatus,
    labelUrl: ret.labelUrl,
    labelUpdatedAt: ret.labelUpdatedAt,
    restockStatus: restockStatusOf(ret),
    receivingLocationId: ret.destinationLocationId,
    receivingLocationName: ret.destinationLocation?.name ?? null,
    externalReferenceId: ret.externalReferenceId,
    reason: item.reason,
    outcome: item.outcome,
    createdAt: ret.createdAt,
    updatedAt: ret.updatedAt,
    closedAt,
    deliveredAt,
  }));
}

/**
 * One row per line item still on a return created in [from, to), oldest return first (ties by
 * number); deleted returns are left out.
 */
export async function listAsnRows(reads: Reads, storeId: string, window: { from: Date; to: Date }): Promise<AsnRow[]> {
  const returns = await reads.return.findMany({
    where: asnReturnsWhere(storeId, window),
    orderBy: [{ createdAt: 'asc' }, { number: 'asc' }],
    select: ASN_RETURN_SELECT,
  });
  return returns.flatMap(asnRowsOf);
}

// Orders submitted by a merchant's system (docs/interface-rules.md, "Orders"). One
// transaction writes the order, its fulfillment group and lines, commits stock at the
// fulfillment location and records order.created. The merchant's orderId is unique per
// store (unique index, inserted with ON CONFLICT DO NOTHING, so a concurrent duplicate
// is a Conflict and never a database error).
import { Prisma, type Location, type Order, type Store } from '../generated/prisma/client.ts';
import { currencyCode, InputIssues, optionalText, requiredText, textList } from './inputChecks.ts';
import { isEmail, normalizeEmail, parseIsoDateTime } from './customers.ts';
import { Conflict, Invalid, isDomainError, type DomainError } from './errors.ts';
import { auditContext } from './audit.ts';
import { recordCoverageSold } from './coverage.ts';
import { recordEvent, recordingCtes } from './events.ts';
import { newId } from './ids.ts';
import { changeLevel, commitLevels, ensureLevel, visibleLocationWhere } from './inventory.ts';
import { REDACTED } from './privacy/personalData.ts';
import { formatAmount, toDecimal, type DecimalValue } from './money.ts';
import { claimedQuantities } from './returns/locking.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export const MAX_LINE_QUANTITY = 1000;
// Amount columns are DECIMAL(19, 4).
const MAX_AMOUNT_INTEGER_DIGITS = 15;
const MAX_AMOUNT_FRACTION_DIGITS = 4;

export type Amount = string | number;

export interface OrderAddressInput {
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  province?: string | null;
  country?: string | null;
  postalCode?: string | null;
}

export interface OrderLineItemInput {
  id: string;
  productId: string;
  title: string;
  quantity: number;
  variantId?: string | null;
  sku?: string | null;
  price?: Amount | null;
  imageUrl?: string | null;
  discount?: Amount | null;
}

export interface OrderCustomerInput {
  id?: string | null;
  email?: string | null;
  phoneNumber?: string | null;
  name?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}

export interface OrderInput {
  /** The merchant's order id, unique in the store. */
  orderId: string;
  createdAt: Date | string;
  lineItems: OrderLineItemInput[];
  customer?: OrderCustomerInput | null;
  shipping?: { method?: string | null; cost?: Amount | null; address?: OrderAddressInput | null } | null;
  totalPrice?: Amount | null;
  subtotalPrice?: Amount | null;
  totalTax?: Amount | null;
  totalDiscount?: Amount | null;
  billingAddress?: OrderAddressInput | null;
  tags?: string[] | null;
  /** ISO 4217; the store currency when omitted. */
  currency?: string | null;
  locationId?: string | null;
}

/** An exact, non-negative amount that fits the amount columns. */
export function amount(issues: InputIssues, path: string, value: Amount | null | undefined): DecimalValue | null {
  if (value === undefined || value === null) return null;
  let decimal: DecimalValue;
  try {
    decimal = toDecimal(value);
  } catch {
    issues.add(path, 'must be a decimal number');
    return null;
  }
  if (!decimal.isFinite()) issues.add(path, 'must be a decimal number');
  else if (decimal.isNegative()) issues.add(path, 'must be greater than or equal to 0');
  else if (decimal.decimalPlaces() > MAX_AMOUNT_FRACTION_DIGITS) issues.add(path, `must have at most ${MAX_AMOUNT_FRACTION_DIGITS} decimal places`);
  else if (decimal.gte(toDecimal(`1e${MAX_AMOUNT_INTEGER_DIGITS}`))) issues.add(path, `must be below 10^${MAX_AMOUNT_INTEGER_DIGITS}`);
  return decimal;
}

function placedAt(issues: InputIssues, value: Date | string): Date {
  const date = value instanceof Date ? value : parseIsoDateTime(value);
  if (!date || Number.isNaN(date.getTime())) {
    issues.add('createdAt', 'must be an ISO 8601 date-time with a time zone');
    return new Date(Number.NaN);
  }
  return date;
}

function address(issues: InputIssues, path: string, input: OrderAddressInput | null | undefined): Prisma.InputJsonObject | undefined {
  if (!input) return undefined;
  const fields = ['address1', 'address2', 'city', 'province', 'country', 'postalCode'] as const;
  const out: Record<string, string> = {};
  for (const field of fields) {
    const text = optionalText(issues, `${path}.${field}`, input[field]);
    if (text) out[field] = text;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

interface ParsedLine {
  index: number;
  externalId: string;
  externalProductId: string;
  externalVariantId: string | null;
  title: string;
  quantity: number;
  sku: string | null;
  price: DecimalValue | null;
  discount: DecimalValue | null;
  imageUrl: string | null;
}

function parseLines(issues: InputIssues, lines: OrderLineItemInput[]): ParsedLine[] {
  if (lines.length === 0) issues.add('lineItems', 'must contain at least one line item');
  const seen = new Set<string>();
  return lines.map((line, index) => {
    const path = `lineItems.${index}`;
    const externalId = requiredText(issues, `${path}.id`, line.id);
    if (externalId && seen.has(externalId)) issues.add(`${path}.id`, `line item id "${externalId}" appears twice in the order`);
    seen.add(externalId);
    if (!Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > MAX_LINE_QUANTITY) {
      issues.add(`${path}.quantity`, `must be an integer from 1 to ${MAX_LINE_QUANTITY}`);
    }
    return {
      index,
      externalId,
      externalProductId: requiredText(issues, `${path}.productId`, line.productId),
      externalVariantId: optionalText(issues, `${path}.variantId`, line.variantId) ?? null,
      title: requiredText(issues, `${path}.title`, line.title, 1000),
      quantity: line.quantity,
      sku: optionalText(issues, `${path}.sku`, line.sku) ?? null,
      price: amount(issues, `${path}.price`, line.price),
      discount: amount(issues, `${path}.discount`, line.discount),
      imageUrl: optionalText(issues, `${path}.imageUrl`, line.imageUrl, 2048) ?? null,
    };
  });
}

function parseCustomer(issues: InputIssues, input: OrderCustomerInput | null | undefined) {
  const rawEmail = optionalText(issues, 'customer.email', input?.email);
  const email = rawEmail ? normalizeEmail(rawEmail) : null;
  if (email && !isEmail(email)) issues.add('customer.email', 'must be a valid e-mail address');
  return {
    customerExternalId: optionalText(issues, 'customer.id', input?.id) ?? null,
    customerEmail: email,
    customerPhone: optionalText(issues, 'customer.phoneNumber', input?.phoneNumber, 32) ?? null,
    customerName: optionalText(issues, 'customer.name', input?.name) ?? null,
    customerFirstName: optionalText(issues, 'customer.firstName', input?.firstName) ?? null,
    customerLastName: optionalText(issues, 'customer.lastName', input?.lastName) ?? null,
  };
}

/** The order's columns and lines, every problem of the input refused at once (Invalid) before anything is written. */
export function parseOrder(input: OrderInput) {
  const issues = new InputIssues();
  const parsed = {
    externalId: requiredText(issues, 'orderId', input.orderId),
    placedAt: placedAt(issues, input.createdAt),
    lines: parseLines(issues, input.lineItems),
    customer: parseCustomer(issues, input.customer),
    shippingMethod: optionalText(issues, 'shipping.method', input.shipping?.method) ?? null,
    shippingCost: amount(issues, 'shipping.cost', input.shipping?.cost),
    shippingAddress: address(issues, 'shipping.address', input.shipping?.address),
    billingAddress: address(issues, 'billingAddress', input.billingAddress),
    totalPrice: amount(issues, 'totalPrice', input.totalPrice),
    subtotalPrice: amount(issues, 'subtotalPrice', input.subtotalPrice),
    totalTax: amount(issues, 'totalTax', input.totalTax),
    totalDiscount: amount(issues, 'totalDiscount', input.totalDiscount),
    tags: textList(issues, 'tags', input.tags ?? []) ?? [],
    currency: currencyCode(issues, 'currency', input.currency),
    locationId: optionalText(issues, 'locationId', input.locationId) ?? null,
  };
  issues.throwIfAny();
  return parsed;
}

export type ParsedOrder = ReturnType<typeof parseOrder>;

/**
 * The location the order is fulfilled from and commits stock at: the one it names (the
 * store's own or a linked fulfillment service's), else the store's default location.
 */
async function fulfillmentLocation(tx: Tx, store: Store, locationId: string | null): Promise<Location> {
  const id = locationId ?? store.defaultLocationId;
  const location = id ? await tx.location.findFirst({ where: { AND: [{ id }, visibleLocationWhere(store.id)] } }) : null;
  if (location) return location;
  if (locationId !== null) throw unknownLocation(locationId);
  throw new Error(`store ${store.id} has no default location`);
}

function unknownLocation(locationId: string): Invalid {
  return Invalid.of([{ path: 'locationId', message: `${locationId} is not a location of this store or of a fulfillment service linked to it` }]);
}

interface MatchedProduct {
  id: string;
  /** The level the line commits at (made empty when the product had none there); null when the order commits no stock. */
  levelId: string | null;
}

/** A product a line may name, with its level at the fulfillment location when it has one. */
interface CandidateProduct {
  id: string;
  sku: string | null;
  levelId: string | null;
}

/**
 * The store's products the lines may name: by the merchant's productId being one of ours,
 * or by sku (oldest first, so the oldest of several sharing a sku is the one matched).
 */
function candidateKeys(lines: ParsedLine[]) {
  return {
    ids: [...new Set(lines.map((l) => l.externalProductId))],
    skus: [...new Set(lines.flatMap((l) => (l.sku ? [l.sku] : [])))],
  };
}

/**
 * Our product for each line: the merchant's productId naming one of the store's
 * products, else the store's product with the line's sku (the oldest, should
 * several share it). A product never stocked at the location gets an empty level
 * there, so its commitment is still recorded, as oversold.
 */
async function matchCandidates(
  tx: Tx,
  storeId: string,
  lines: ParsedLine[],
  products: CandidateProduct[],
  locationId: string,
  commitStock = true,
): Promise<(MatchedProduct | null)[]> {
  const matched = lines.map((line) => products.find((p) => p.id === line.externalProductId) ?? (line.sku ? products.find((p) => p.sku === line.sku) : undefined));
  const levels = new Map<string, string>();
  for (const product of new Set(matched)) {
    if (!product || !commitStock) continue;
    levels.set(product.id, product.levelId ?? (await ensureLevel(tx, { id: product.id, storeId }, locationId)).id);
  }
  return matched.map((product) => (product ? { id: product.id, levelId: levels.get(product.id) ?? null } : null));
}

async function matchProducts(tx: Tx, storeId: string, lines: ParsedLine[], location: Location): Promise<(MatchedProduct | null)[]> {
  const { ids, skus } = candidateKeys(lines);
  const products = await tx.product.findMany({
    where: { storeId, OR: [{ id: { in: ids } }, ...(skus.length > 0 ? [{ sku: { in: skus } }] : [])] },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, sku: true, inventoryLevels: { where: { locationId: location.id }, select: { id: true } } },
  });
  return matchCandidates(
    tx,
    storeId,
    lines,
    products.map((p) => ({ id: p.id, sku: p.sku, levelId: p.inventoryLevels[0]?.id ?? null })),
    location.id,
  );
}

type OriginSource = Pick<Location, 'id' | 'name' | 'company' | 'street1' | 'street2' | 'city' | 'stateCode' | 'postalCode' | 'countryCode' | 'phone'>;
type StoreSource = Pick<
  Store,
  'id' | 'currency' | 'defaultLocationId' | 'originName' | 'originCompany' | 'originStreet1' | 'originStreet2' | 'originCity' | 'originStateCode' | 'originPostalCode' | 'originCountryCode' | 'originPhone'
>;

/**
 * Everything new orders of one store read before they write, in one statement whatever their
 * number (an import's batch reads with it once, a single order too): the store, the fulfillment
 * locations (each order's named one when the store may use it, else the default), the products
 * their lines may name with their levels at those locations, the customers with their e-mails,
 * which of their productIds are coverage the store sells, and which of their orderIds the store
 * already has. Its text is the same for every batch (arrays, never lists built per order), so
 * each connection prepares and plans it once.
 */
const ORDERS_CONTEXT_SQL = `
WITH store AS (SELECT * FROM "Store" WHERE id = $1),
location AS (
  SELECT l.* FROM "Location" l, store s
  WHERE l.id IN (SELECT coalesce(w.id, s."defaultLocationId") FROM unnest($2::text[]) AS w(id))
    AND (l."storeId" = $1 OR EXISTS (SELECT 1 FROM "StoreLink" k WHERE k."merchantId" = $1 AND k."fulfillmentServiceId" = l."storeId")))
SELECT
  (SELECT to_jsonb(s) FROM store s) AS store,
  (SELECT coalesce(jsonb_agg(to_jsonb(l)), '[]'::jsonb) FROM location l) AS locations,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', p.id, 'sku', p.sku, 'levels',
       (SELECT coalesce(jsonb_object_agg(v."locationId", v.id), '{}'::jsonb) FROM "InventoryLevel" v WHERE v."productId" = p.id AND v."locationId" IN (SELECT id FROM location))
     ) ORDER BY p."createdAt", p.id), '[]'::jsonb)
     FROM "Product" p
     WHERE p."storeId" = $1 AND (p.id = ANY($3::text[]) OR p.sku = ANY($4::text[]))) AS products,
  (SELECT coalesce(jsonb_object_agg(email, id), '{}'::jsonb) FROM "Customer" WHERE "storeId" = $1 AND email = ANY($5::text[])) AS customers,
  (SELECT coalesce(jsonb_agg(id), '[]'::jsonb) FROM "CoverageProduct" WHERE "storeId" = $1 AND id = ANY($3::text[])) AS coverage,
  (SELECT coalesce(jsonb_agg("externalId"), '[]'::jsonb) FROM "Order" WHERE "storeId" = $1 AND "externalId" = ANY($6::text[])) AS duplicates,
  CASE WHEN $7::text IS NOT NULL THEN set_config('audit.context', $7::text, true) END AS audit_context`;

interface OrderContext {
  store: StoreSource;
  location: OriginSource;
  matches: (MatchedProduct | null)[];
  customerId: string | null;
  sellsCoverage: boolean;
}

function duplicateOrder(parsed: ParsedOrder): Conflict {
  return new Conflict(`an order with orderId "${parsed.externalId}" already exists`, { path: 'orderId' });
}

/**
 * The duplicate a concurrent request committed between this order's read and its write: the
 * same Conflict, found after the order's stock was committed, so its transaction must end.
 */
export class RacedDuplicate extends Conflict {
  constructor(conflict: Conflict) {
    super(conflict.message, { path: 'orderId' });
  }
}

/** What ORDERS_CONTEXT_SQL answers for a batch. */
interface OrdersContextRow {
  store: StoreSource | null;
  locations: OriginSource[];
  products: { id: string; sku: string | null; levels: Record<string, string> }[];
  customers: Record<string, string>;
  coverage: string[];
  duplicates: string[];
}

/**
 * The reads of orders of one store (ORDERS_CONTEXT_SQL, one statement), then each order's
 * context in their order: its products matched (and, when it commits stock, levels made where
 * it has none, as matchCandidates does), or the refusal it meets before it writes (an unknown
 * location, an orderId the store already has), as each order read on its own would meet it.
 */
async function orderContexts(tx: Tx, storeId: string, orders: ParsedOrder[], commitStock: boolean): Promise<(OrderContext | DomainError)[]> {
  const keys = candidateKeys(orders.flatMap((parsed) => parsed.lines));
  const emails = [...new Set(orders.flatMap((parsed) => (parsed.customer.customerEmail ? [parsed.customer.customerEmail] : [])))];
  const [row] = await tx.$queryRawUnsafe<OrdersContextRow[]>(
    ORDERS_CONTEXT_SQL,
    storeId,
    [...new Set(orders.map((parsed) => parsed.locationId))],
    keys.ids,
    keys.skus,
    emails,
    orders.map((parsed) => parsed.externalId),
    // The transaction's first statement (firstStatementNamesActor): the triggers of its writes read it.
    auditContext(),
  );
  const store = row.store;
  if (!store) throw new Error(`store ${storeId} not found`);
  const duplicates = new Set(row.duplicates);
  const coverage = new Set(row.coverage);
  const contexts: (OrderContext | DomainError)[] = [];
  for (const parsed of orders) {
    const locationId = parsed.locationId ?? store.defaultLocationId;
    const location = row.locations.find((l) => l.id === locationId);
    if (!location) {
      if (parsed.locationId !== null) {
        contexts.push(unknownLocation(parsed.locationId));
        continue;
      }
      throw new Error(`store ${storeId} has no default location`);
    }
    if (duplicates.has(parsed.externalId)) {
      contexts.push(duplicateOrder(parsed));
      continue;
    }
    const { ids } = candidateKeys(parsed.lines);
    const products = row.products.map((p) => ({ id: p.id, sku: p.sku, levelId: p.levels[location.id] ?? null }));
    const matches = await matchCandidates(tx, storeId, parsed.lines, products, location.id, commitStock);
    const email = parsed.customer.customerEmail;
    contexts.push({ store, location, matches, customerId: (email && row.customers[email]) || null, sellsCoverage: ids.some((id) => coverage.has(id)) });
  }
  return contexts;
}

/** The fulfillment group's origin: the named location's address, else the store's default origin address. */
function origin(location: OriginSource, named: boolean, store: StoreSource) {
  if (named) {
    return {
      locationId: location.id,
      originName: location.name,
      originCompany: location.company,
      originStreet1: location.street1,
      originStreet2: location.street2,
      originCity: location.city,
      originStateCode: location.stateCode,
      originPostalCode: location.postalCode,
      originCountryCode: location.countryCode,
      originPhone: location.phone,
    };
  }
  return {
    locationId: location.id,
    originName: store.originName,
    originCompany: store.originCompany,
    originStreet1: store.originStreet1,
    originStreet2: store.originStreet2,
    originCity: store.originCity,
    originStateCode: store.originStateCode,
    originPostalCode: store.originPostalCode,
    originCountryCode: store.originCountryCode,
    originPhone: store.originPhone,
  };
}

/**
 * Commits each matched level once (one statement for all of them, which locks them in id
 * order so concurrent orders queue on shared levels and never deadlock), and returns how much
 * of each line was oversold: a level's shortfall falls on its last lines.
 */
async function commitLines(tx: Tx, storeId: string, orderId: string, lines: ParsedLine[], matches: (MatchedProduct | null)[]): Promise<number[]> {
  const byLevel = new Map<string, number[]>();
  lines.forEach((_line, i) => {
    const levelId = matches[i]?.levelId;
    if (levelId) byLevel.set(levelId, [...(byLevel.get(levelId) ?? []), i]);
  });
  const quantityOf = (indexes: number[]) => indexes.reduce((sum, i) => sum + lines[i].quantity, 0);
  const oversoldByLevel = await commitLevels(
    tx,
    storeId,
    [...byLevel].map(([levelId, indexes]) => ({ levelId, quantity: quantityOf(indexes) })),
    { reason: 'order', referenceId: orderId },
  );
  const oversold = lines.map(() => 0);
  for (const [levelId, indexes] of byLevel) {
    let covered = quantityOf(indexes) - oversoldByLevel.get(levelId)!;
    for (const i of indexes) {
      const fromStock = Math.min(lines[i].quantity, covered);
      covered -= fromStock;
      oversold[i] = lines[i].quantity - fromStock;
    }
  }
  return oversold;
}

function orderEventData(
  order: Pick<Order, 'id' | 'name' | 'externalId' | 'placedAt' | 'currency' | 'totalPrice' | 'subtotalPrice' | 'totalTax' | 'totalDiscount' | 'shippingCost' | 'customerId' | 'customerEmail' | 'tags' | 'createdAt'>, lines: ParsedLine[], matches: (MatchedProduct | null)[], lineIds: string[], oversold: number[], locationId: string) {
  const format = (value: DecimalValue | null) => (value === null ? null : formatAmount(value, order.currency));
  return {
    id: order.id,
    name: order.name,
    externalId: order.externalId,
    placedAt: order.placedAt.toISOString(),
    currency: order.currency,
    totalPrice: format(order.totalPrice),
    subtotalPrice: format(order.subtotalPrice),
    totalTax: format(order.totalTax),
    totalDiscount: format(order.totalDiscount),
    shippingCost: format(order.shippingCost),
    customerId: order.customerId,
    customerEmail: order.customerEmail,
    fulfillmentLocationId: locationId,
    tags: order.tags,
    lineItems: lines.map((line, i) => ({
      id: lineIds[i],
      externalId: line.externalId,
      externalProductId: line.externalProductId,
      productId: matches[i]?.id ?? null,
      title: line.title,
      quantity: line.quantity,
      sku: line.sku,
      price: format(line.price),
      oversoldQuantity: oversold[i],
    })),
    createdAt: order.createdAt.toISOString(),
  };
}

/** The store's customer with the order's e-mail, if any. */
async function customerIdOf(tx: Tx, storeId: string, parsed: ParsedOrder): Promise<string | null> {
  const email = parsed.customer.customerEmail;
  if (!email) return null;
  const customer = await tx.customer.findUnique({ where: { storeId_email: { storeId, email } }, select: { id: true } });
  return customer?.id ?? null;
}

/** The order's own columns (everything but its id, store, name and number). */
function orderColumns(parsed: ParsedOrder, currency: string, customerId: string | null) {
  return {
    externalId: parsed.externalId,
    placedAt: parsed.placedAt,
    currency,
    totalPrice: parsed.totalPrice,
    subtotalPrice: parsed.subtotalPrice,
    totalTax: parsed.totalTax,
    totalDiscount: parsed.totalDiscount,
    tags: parsed.tags,
    customerId,
    ...parsed.customer,
    shippingMethod: parsed.shippingMethod,
    shippingCost: parsed.shippingCost,
    shippingAddress: parsed.shippingAddress ?? Prisma.DbNull,
    billingAddress: parsed.billingAddress ?? Prisma.DbNull,
  };
}

/** A line's columns, as matched to our product and committed at its level. */
function lineColumns(line: ParsedLine, match: MatchedProduct | null, oversold: number) {
  return {
    position: line.index,
    externalId: line.externalId,
    externalProductId: line.externalProductId,
    externalVariantId: line.externalVariantId,
    title: line.title,
    quantity: line.quantity,
    sku: line.sku,
    price: line.price,
    discount: line.discount,
    imageUrl: line.imageUrl,
    productId: match?.id ?? null,
    committedLevelId: match?.levelId ?? null,
    oversoldQuantity: oversold,
  };
}

/** A row's columns as JSON for jsonb_populate_record: amounts as exact text, times as ISO text, absent values left out (so NULL). */
function rowJson(columns: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(columns)) {
    if (value === null || value === undefined || value === Prisma.DbNull) continue;
    out[key] = Prisma.Decimal.isDecimal(value) ? (value as DecimalValue).toFixed() : value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

const quotedColumns = (row: Record<string, unknown>) => Object.keys(row).map((column) => `"${column}"`).join(', ');

/**
 * Orders, their fulfillment groups, their lines and their order.created events in one
 * statement, which takes the store's next order numbers first (one for each order, in the
 * orders' order): the store row stays locked from here to the commit, and this is the
 * transaction's last statement for them, so orders of one store queue for their numbers only
 * for this statement and the commit (numbers never repeat or skip: a rolled-back order gives
 * its number back). Each order goes in with its search document complete, its lines'
 * included (order_search_document_with), so that the lines' insert finds it current and does
 * not rewrite the order row. Each event's data takes its order's number as its name. A
 * concurrent duplicate orderId inserts nothing (and answers no row for that order).
 */
function writeOrdersSql(order: Record<string, unknown>, group: Record<string, unknown>, line: Record<string, unknown>): string {
  return `
WITH lines AS MATERIALIZED (
  SELECT l FROM jsonb_populate_recordset(NULL::"OrderLineItem", $5::jsonb) l
), lines_of AS (
  SELECT (x.l)."orderId" AS order_id, array_agg(x.l) AS lines FROM lines x GROUP BY 1
), numbered AS (
  UPDATE "Store" SET "nextOrderNumber" = "nextOrderNumber" + $7::int, "updatedAt" = $2::timestamp(3) WHERE id = $1 RETURNING "nextOrderNumber" - $7::int AS first
), inserted AS (
  INSERT INTO "Order" (name, "searchText", ${quotedColumns(order)})
  SELECT r.name, order_search_document_with(r, coalesce(lines_of.lines, '{}')), ${Object.keys(order).map((column) => `r."${column}"`).join(', ')}
  FROM numbered, jsonb_array_elements($3::jsonb) WITH ORDINALITY AS o(value, n)
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"Order", o.value || jsonb_build_object('name', '#' || (numbered.first + o.n - 1))) r
  LEFT JOIN lines_of ON lines_of.order_id = r.id
  ORDER BY o.n
  ON CONFLICT ("storeId", "externalId") DO NOTHING
  RETURNING *
), grouped AS (
  INSERT INTO "FulfillmentGroup" (${quotedColumns(group)})
  SELECT ${Object.keys(group).map((column) => `g."${column}"`).join(', ')} FROM jsonb_populate_recordset(NULL::"FulfillmentGroup", $4::jsonb) g WHERE g."orderId" IN (SELECT id FROM inserted)
), lined AS (
  INSERT INTO "OrderLineItem" (${quotedColumns(line)})
  SELECT ${Object.keys(line).map((column) => `(x.l)."${column}"`).join(', ')} FROM lines x WHERE (x.l)."orderId" IN (SELECT id FROM inserted)
), announced AS (
  SELECT 'order.created'::text AS topic, i.id AS "subjectId", e.event_id, e.data || jsonb_build_object('name', i.name) AS data
  FROM inserted i JOIN jsonb_to_recordset($6::jsonb) AS e(order_id text, event_id text, data jsonb) ON e.order_id = i.id
), ${recordingCtes('event_id', '$1::text')}
SELECT * FROM inserted`;
}

/** Every column a line may set, so that one statement text serves lines with and without each. */
const LINE_COLUMNS = [
  'id', 'orderId', 'fulfillmentGroupId', 'position', 'externalId', 'externalProductId', 'externalVariantId', 'title', 'quantity',
  'sku', 'price', 'discount', 'imageUrl', 'productId', 'committedLevelId', 'oversoldQuantity',
] as const;

/** The statement text for orders and groups of these columns (their set varies with what the orders give), built once per set. */
const writeOrdersSqlCache = new Map<string, string>();

function cachedWriteOrdersSql(order: Record<string, unknown>, group: Record<string, unknown>): string {
  const key = `${Object.keys(order).join(',')}|${Object.keys(group).join(',')}`;
  let sql = writeOrdersSqlCache.get(key);
  if (!sql) {
    sql = writeOrdersSql(order, group, Object.fromEntries(LINE_COLUMNS.map((column) => [column, true])));
    writeOrdersSqlCache.set(key, sql);
  }
  return sql;
}

/** An order read, matched and its stock committed, whose rows are ready for writeOrders. */
interface PreparedOrder {
  parsed: ParsedOrder;
  now: Date;
  orderRow: Record<string, unknown>;
  groupRow: Record<string, unknown>;
  lines: Record<string, unknown>[];
  lineIds: string[];
  eventData: Record<string, unknown>;
  sellsCoverage: boolean;
}

/**
 * The stock an order's lines commit (commitLines: levels, ledger rows, their events), given what
 * it read (orderContexts), with the rows writeOrders writes for it.
 */
async function prepareOrder(tx: Tx, storeId: string, parsed: ParsedOrder, context: OrderContext): Promise<PreparedOrder> {
  const { store, location, matches, customerId, sellsCoverage } = context;
  const id = newId('order');
  const oversold = await commitLines(tx, storeId, id, parsed.lines, matches);
  const now = new Date();
  const columns = { id, storeId, ...orderColumns(parsed, parsed.currency ?? store.currency, customerId), createdAt: now, updatedAt: now };
  const group = origin(location, parsed.locationId !== null, store);
  const groupId = newId('fulfillmentGroup');
  const lineIds = parsed.lines.map(() => newId('orderLineItem'));
  const lines = parsed.lines.map((line, i) => rowJson({ id: lineIds[i], orderId: id, fulfillmentGroupId: groupId, ...lineColumns(line, matches[i], oversold[i]) }));
  const { name: _named, ...eventData } = orderEventData({ ...columns, name: '' }, parsed.lines, matches, lineIds, oversold, group.locationId);
  return { parsed, now, orderRow: rowJson(columns), groupRow: rowJson({ id: groupId, orderId: id, ...group, createdAt: now }), lines, lineIds, eventData, sellsCoverage };
}

/**
 * Writes prepared orders of one store in one statement (writeOrdersSql), numbered in their
 * order, and the coverage their lines sell. A RacedDuplicate when a concurrent request
 * committed one of their orderIds after it was read: the transaction must end.
 */
async function writeOrders(tx: Tx, storeId: string, prepared: PreparedOrder[]): Promise<Order[]> {
  // The union of the columns the orders give: one absent from an order is NULL, as its column's default is.
  const orderColumnSet = Object.fromEntries(prepared.flatMap((p) => Object.keys(p.orderRow)).map((column) => [column, true]));
  const groupColumnSet = Object.fromEntries(prepared.flatMap((p) => Object.keys(p.groupRow)).map((column) => [column, true]));
  const rows = await tx.$queryRawUnsafe<Order[]>(
    cachedWriteOrdersSql(orderColumnSet, groupColumnSet),
    storeId,
    prepared.at(-1)!.now.toISOString(),
    JSON.stringify(prepared.map((p) => p.orderRow)),
    JSON.stringify(prepared.map((p) => p.groupRow)),
    JSON.stringify(prepared.flatMap((p) => p.lines)),
    JSON.stringify(prepared.map((p) => ({ order_id: p.orderRow.id, event_id: newId('event'), data: p.eventData }))),
    prepared.length,
  );
  const byId = new Map(rows.map((order) => [order.id, order]));
  const orders: Order[] = [];
  for (const p of prepared) {
    const order = byId.get(p.orderRow.id as string);
    if (!order) throw new RacedDuplicate(duplicateOrder(p.parsed));
    if (p.sellsCoverage) await recordCoverageSold(tx, order, p.parsed.lines.map((line, i) => ({ ...line, id: p.lineIds[i] })));
    orders.push(order);
  }
  return orders;
}

/**
 * Writes a new order: a Conflict when the store already has its orderId. Four statements
 * whatever the number of lines: what it reads (orderContexts) and the stock its lines commit (prepareOrder),
 * the order with its group, lines and event (writeOrders), which takes the store's next number
 * last so that the store's orders wait on each other only for that statement and the commit;
 * plus the audit context the transaction starts with. Coverage sold on a line adds its own writes.
 */
export async function insertOrder(tx: Tx, storeId: string, parsed: ParsedOrder): Promise<Order> {
  const [context] = await orderContexts(tx, storeId, [parsed], true);
  if (isDomainError(context)) throw context;
  const [order] = await writeOrders(tx, storeId, [await prepareOrder(tx, storeId, parsed, context)]);
  return order;
}

/** Gives back the stock every committed line of the order holds, level by level in id order. */
export async function releaseCommitments(tx: Tx, orderId: string, reason: string): Promise<void> {
  const lines = await tx.orderLineItem.findMany({ where: { orderId, committedLevelId: { not: null } } });
  const byLevel = new Map<string, number>();
  for (const line of lines) byLevel.set(line.committedLevelId!, (byLevel.get(line.committedLevelId!) ?? 0) + line.quantity);
  for (const levelId of [...byLevel.keys()].sort()) {
    await changeLevel(tx, levelId, { committed: -byLevel.get(levelId)! }, { reason, referenceId: orderId }, undefined, { allowOvercommit: true });
  }
}

type StoredLine = { id: string; externalId: string; quantity: number; productId: string | null; committedLevelId: string | null; oversoldQuantity: number };

/** Lines returns point at: removing one would rewrite a return's history; lowering one below its claimed units would over-return it. */
async function checkReturnedLines(tx: Tx, existing: StoredLine[], lines: ParsedLine[]): Promise<void> {
  const ids = existing.map((line) => line.id);
  const claimed = await claimedQuantities(tx, ids);
  const referenced = await tx.returnItem.groupBy({ by: ['orderLineItemId'], where: { orderLineItemId: { in: ids } }, _count: { _all: true } });
  const issues = new InputIssues();
  for (const line of existing) {
    const kept = lines.find((l) => l.externalId === line.externalId);
    const units = claimed.get(line.id) ?? 0;
    if (!kept && referenced.some((r) => r.orderLineItemId === line.id)) {
      issues.add('lineItems', `line item ${line.externalId} is on a return and cannot be removed from the order`);
    } else if (kept && kept.quantity < units) {
      issues.add(`lineItems.${kept.index}.quantity`, `line item ${line.externalId} has ${units} unit(s) claimed by returns; its quantity cannot go below that`);
    }
  }
  issues.throwIfAny();
}

/** True when every line keeps its quantity, product and level, none comes and none goes. */
function sameStock(existing: StoredLine[], lines: ParsedLine[], matches: (MatchedProduct | null)[]): boolean {
  return (
    existing.length === lines.length &&
    lines.every((line, i) => {
      const stored = existing.find((l) => l.externalId === line.externalId);
      return stored && stored.quantity === line.quantity && stored.productId === (matches[i]?.id ?? null) && stored.committedLevelId === (matches[i]?.levelId ?? null);
    })
  );
}

/**
 * Replaces an existing order's contents by `parsed` (a synced order sends all of it), keeping
 * its id, name, fulfillment location and the ids of the lines it keeps, which returns and
 * fulfillments point at. Stock follows the lines: when a line's quantity or product changed,
 * or lines came or went, the order's commitments are given back and the new lines committed.
 */
export async function rewriteOrder(tx: Tx, storeId: string, order: Order, parsed: ParsedOrder): Promise<Order> {
  await tx.$queryRaw`SELECT id FROM "Order" WHERE id = ${order.id} FOR UPDATE`;
  const existing = await tx.orderLineItem.findMany({ where: { orderId: order.id } });
  await checkReturnedLines(tx, existing, parsed.lines);
  const group = await tx.fulfillmentGroup.findFirst({ where: { orderId: order.id }, orderBy: { createdAt: 'asc' }, include: { location: true } });
  const location = group?.location ?? (await fulfillmentLocation(tx, await tx.store.findUniqueOrThrow({ where: { id: storeId } }), null));
  const matches = await matchProducts(tx, storeId, parsed.lines, location);
  let oversold: number[];
  if (sameStock(existing, parsed.lines, matches)) {
    oversold = parsed.lines.map((line) => existing.find((l) => l.externalId === line.externalId)!.oversoldQuantity);
  } else {
    await releaseCommitments(tx, order.id, 'order_updated');
    oversold = await commitLines(tx, storeId, order.id, parsed.lines, matches);
  }
  const gone = existing.filter((line) => !parsed.lines.some((l) => l.externalId === line.externalId));
  if (gone.length > 0) await tx.orderLineItem.deleteMany({ where: { id: { in: gone.map((line) => line.id) } } });
  const lineIds: string[] = [];
  const added: (ParsedLine & { id: string })[] = [];
  for (const [i, line] of parsed.lines.entries()) {
    const stored = existing.find((l) => l.externalId === line.externalId);
    const columns = lineColumns(line, matches[i], oversold[i]);
    if (stored) {
      await tx.orderLineItem.update({ where: { id: stored.id }, data: columns });
      lineIds.push(stored.id);
    } else {
      const id = newId('orderLineItem');
      await tx.orderLineItem.create({ data: { id, orderId: order.id, fulfillmentGroupId: group?.id ?? null, ...columns } });
      lineIds.push(id);
      added.push({ ...line, id });
    }
  }
  const updated = await tx.order.update({
    where: { id: order.id },
    data: orderColumns(parsed, parsed.currency ?? order.currency, await customerIdOf(tx, storeId, parsed)),
  });
  await recordCoverageSold(tx, updated, added);
  await recordEvent(tx, {
    storeId,
    topic: 'order.updated',
    subjectId: order.id,
    data: orderEventData(updated, parsed.lines, matches, lineIds, oversold, location.id),
  });
  return updated;
}

/**
 * Creates an order in one transaction. Invalid input is refused before anything is
 * written; a duplicate orderId is a Conflict. A valid order is always accepted: its
 * sale has happened, so stock short of its lines is recorded as oversold, never refused.
 */
export async function createOrder(db: Db | Tx, storeId: string, input: OrderInput): Promise<Order> {
  const parsed = parseOrder(input);
  return inTransaction(db, (tx) => insertOrder(tx, storeId, parsed), { firstStatementNamesActor: true });
}

export const MAX_IMPORTED_ORDERS = 1000;
/** Orders written per transaction by an import: one transaction holds the store's number lock, so live orders wait at most one batch. */
const IMPORT_BATCH = 100;
/** How often a batch is run again when a concurrent request wrote one of its orderIds first. */
const IMPORT_BATCH_ATTEMPTS = 3;

export type ImportedOrderResult = { status: 'created'; order: Order } | { status: 'refused'; error: DomainError };

type ParsedImport = { index: number; parsed: ParsedOrder };

/**
 * Imports existing orders (an integration's sync, a platform's history): each validated and
 * written as createOrder would, its refusal reported at its index while the others are written,
 * in batches of IMPORT_BATCH orders a transaction. Historical orders commit no stock unless
 * `commitStock` says so (their lines still name our products). An orderId twice in the
 * request is refused the second time, as the store would refuse it.
 */
export async function importOrders(db: Db | Tx, storeId: string, inputs: OrderInput[], { commitStock = false }: { commitStock?: boolean } = {}): Promise<ImportedOrderResult[]> {
  if (inputs.length < 1 || inputs.length > MAX_IMPORTED_ORDERS) throw new Invalid(`must list 1 to ${MAX_IMPORTED_ORDERS} orders`, { path: 'orders' });
  const results: ImportedOrderResult[] = new Array(inputs.length);
  const valid: ParsedImport[] = [];
  const seen = new Set<string>();
  inputs.forEach((input, index) => {
    try {
      const parsed = parseOrder(input);
      if (seen.has(parsed.externalId)) throw new Conflict(`orderId "${parsed.externalId}" appears earlier in the request`, { path: 'orderId' });
      seen.add(parsed.externalId);
      valid.push({ index, parsed });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      results[index] = { status: 'refused', error };
    }
  });
  for (let start = 0; start < valid.length; start += IMPORT_BATCH) {
    for (const [index, result] of await importBatch(db, storeId, valid.slice(start, start + IMPORT_BATCH), commitStock)) results[index] = result;
  }
  return results;
}

/**
 * One transaction of orders. A refusal found before an order writes (a duplicate orderId, an
 * unknown location) leaves the transaction going; a duplicate committed by a concurrent request
 * after its read ends it, and the batch runs again, which then refuses that order up front.
 * Inside the caller's transaction (a request with an Idempotency-Key) there is no running
 * again: the Conflict ends the request, which wrote nothing.
 */
async function importBatch(db: Db | Tx, storeId: string, batch: ParsedImport[], commitStock: boolean): Promise<Map<number, ImportedOrderResult>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(
        db,
        async (tx) => {
          const results = new Map<number, ImportedOrderResult>();
          const prepared: { index: number; order: PreparedOrder }[] = [];
          // The batch's reads are one statement; each order then commits its stock on its own, in the batch's order.
          const contexts = await orderContexts(tx, storeId, batch.map(({ parsed }) => parsed), commitStock);
          for (const [i, { index, parsed }] of batch.entries()) {
            const context = contexts[i];
            try {
              if (isDomainError(context)) throw context;
              prepared.push({ index, order: await prepareOrder(tx, storeId, parsed, context) });
            } catch (error) {
              if (!isDomainError(error)) throw error;
              results.set(index, { status: 'refused', error });
            }
          }
          if (prepared.length > 0) {
            const orders = await writeOrders(tx, storeId, prepared.map((p) => p.order));
            prepared.forEach(({ index }, i) => results.set(index, { status: 'created', order: orders[i] }));
          }
          return results;
        },
        { timeoutMs: 120_000, firstStatementNamesActor: true },
      );
    } catch (error) {
      if (!(error instanceof RacedDuplicate) || !('$connect' in db) || attempt >= IMPORT_BATCH_ATTEMPTS) throw error;
    }
  }
}

/**
 * The order a shopper opens in the returns portal by its name and the e-mail it was placed with
 * (any case), or null: an unknown name and a wrong e-mail are the same answer. An erased order
 * carries REDACTED where its e-mail was, which is nobody's: typing the marker opens nothing, and
 * an erased order opens with nothing typed.
 */
export async function findShopperOrder(db: Db | Tx, storeId: string, name: string, email: string): Promise<string | null> {
  const typed = normalizeEmail(email);
  if (typed === REDACTED || !isEmail(typed)) return null;
  const orders = await db.order.findMany({
    where: { storeId, name, customerEmail: { not: null } },
    select: { id: true, customerEmail: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  return orders.find((order) => order.customerEmail !== REDACTED && normalizeEmail(order.customerEmail!) === typed)?.id ?? null;
}

// ---------------------------------------------------------------- figures a list of orders shows

/** How far the order's units have been sent: none, some, all of them, or all of them and every shipment delivered. */
export type OrderFulfillmentState = 'unfulfilled' | 'partially_fulfilled' | 'fulfilled' | 'delivered';

/** What fulfillmentStateOf and unitsOrderedOf read; usable as a Prisma `select` on Order. */
export const FULFILLMENT_STATE_SELECT = {
  lineItems: { select: { quantity: true } },
  fulfillments: { select: { status: true, lineItems: { select: { quantity: true } } } },
} satisfies Prisma.OrderSelect;

type FulfillmentStateSource = { lineItems: { quantity: number }[]; fulfillments: { status: string; lineItems: { quantity: number }[] }[] };

export function unitsOrderedOf(order: Pick<FulfillmentStateSource, 'lineItems'>): number {
  return order.lineItems.reduce((sum, line) => sum + line.quantity, 0);
}

export function fulfillmentStateOf(order: FulfillmentStateSource): OrderFulfillmentState {
  const sent = order.fulfillments.reduce((sum, f) => sum + f.lineItems.reduce((units, line) => units + line.quantity, 0), 0);
  if (sent === 0) return 'unfulfilled';
  if (sent < unitsOrderedOf(order)) return 'partially_fulfilled';
  return order.fulfillments.every((f) => f.status === 'delivered') ? 'delivered' : 'fulfilled';
}

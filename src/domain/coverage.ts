// Coverage a store sells at checkout (shipping protection `SHIPPING_FAILURE`, free
// return shipping `RETURN_SHIPPING`): its settings, the price of a cart's coverage, and
// the record of coverage sold on an order.
//
// Price of one coverage type for a cart: `percentage` % of the merchandise value of the
// cart's eligible lines, clamped to [minimumPrice, maximumPrice], rounded half-up to the
// currency's digits, in the cart's currency (the bounds are amounts of that currency).
// A cart with no eligible merchandise value (empty, free items only, nothing eligible)
// is offered no coverage: there is nothing to protect. Lines in more than one currency
// are refused, since no amount can be added up across them.
import type { CoverageProduct, CoverageType } from '../generated/prisma/client.ts';
import { Invalid, NotFound, type FieldIssue } from './errors.ts';
import { newId } from './ids.ts';
import { chargeInvoiceItem } from './invoices.ts';
import { currencyExponent, Decimal, isCurrencyCode, type DecimalValue } from './money.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export const COVERAGE_TYPES = ['SHIPPING_FAILURE', 'RETURN_SHIPPING'] as const satisfies readonly CoverageType[];

const DEFAULT_TITLES: Record<CoverageType, string> = {
  SHIPPING_FAILURE: 'Shipping protection',
  RETURN_SHIPPING: 'Free return shipping',
};

export interface CartMoney {
  amount: string;
  currency: string;
}

export interface CartLine {
  id: string;
  quantity: number;
  productId: string;
  priceTotal: CartMoney;
}

export interface Cart {
  lines: CartLine[];
  priceTotal: CartMoney;
}

export interface CoverageQuote {
  coverageProductId: string;
  type: CoverageType;
  price: DecimalValue;
  currency: string;
  /** Ids of the cart lines the coverage applies to. */
  lineIds: string[];
}

/** The store's coverage products, one per type; types never configured are off with defaults. */
export async function coverageProducts(db: Db | Tx, storeId: string): Promise<CoverageProduct[]> {
  const stored = await db.coverageProduct.findMany({ where: { storeId } });
  return COVERAGE_TYPES.map((type) => stored.find((p) => p.type === type) ?? unconfigured(storeId, type));
}

function unconfigured(storeId: string, type: CoverageType): CoverageProduct {
  const epoch = new Date(0);
  return {
    id: '',
    storeId,
    type,
    enabled: false,
    title: DEFAULT_TITLES[type],
    description: '',
    percentage: new Decimal(0),
    minimumPrice: new Decimal(0),
    maximumPrice: new Decimal(0),
    eligibleProductIds: [],
    createdAt: epoch,
    updatedAt: epoch,
  };
}

export async function requireStore(db: Db | Tx, storeId: string): Promise<void> {
  const store = await db.store.findUnique({ where: { id: storeId }, select: { id: true } });
  if (!store) throw new NotFound(`store ${storeId} not found`, { path: 'storeId' });
}

function parseAmount(issues: FieldIssue[], path: string, value: string): DecimalValue | null {
  if (!/^-?\d+(\.\d+)?$/.test(value)) {
    issues.push({ path, message: `"${value}" is not a decimal amount` });
    return null;
  }
  return new Decimal(value);
}

/** Prices every enabled coverage type for the cart. */
export function priceCart(products: CoverageProduct[], cart: Cart): CoverageQuote[] {
  const issues: FieldIssue[] = [];
  const currency = cart.priceTotal.currency;
  if (!isCurrencyCode(currency)) issues.push({ path: 'cart.priceTotal.currency', message: `"${currency}" is not an ISO 4217 code` });
  parseAmount(issues, 'cart.priceTotal.amount', cart.priceTotal.amount);
  const amounts = cart.lines.map((line, i) => {
    if (line.priceTotal.currency !== currency) {
      issues.push({ path: `cart.lineItems.${i}.priceTotal.currency`, message: `is ${line.priceTotal.currency} but the cart is in ${currency}: one cart has one currency` });
    }
    const amount = parseAmount(issues, `cart.lineItems.${i}.priceTotal.amount`, line.priceTotal.amount);
    if (amount?.isNegative()) issues.push({ path: `cart.lineItems.${i}.priceTotal.amount`, message: 'must not be negative' });
    return amount ?? new Decimal(0);
  });
  if (issues.length > 0) throw Invalid.of(issues);

  const coverageIds = new Set(products.map((p) => p.id).filter(Boolean));
  const quotes: CoverageQuote[] = [];
  for (const product of products) {
    if (!product.enabled) continue;
    const eligible = cart.lines
      .map((line, i) => ({ line, amount: amounts[i] }))
      .filter(({ line }) => !coverageIds.has(line.productId))
      .filter(({ line }) => product.eligibleProductIds.length === 0 || product.eligibleProductIds.includes(line.productId));
    const merchandise = eligible.reduce((sum, { amount }) => sum.plus(amount), new Decimal(0));
    if (!merchandise.greaterThan(0)) continue;
    const raw = merchandise.times(product.percentage).dividedBy(100);
    const clamped = Decimal.min(Decimal.max(raw, product.minimumPrice), product.maximumPrice);
    quotes.push({
      coverageProductId: product.id,
      type: product.type,
      price: clamped.toDecimalPlaces(currencyExponent(currency), Decimal.ROUND_HALF_UP),
      currency,
      lineIds: eligible.map(({ line }) => line.id),
    });
  }
  return quotes;
}

/** Public (storefront) pricing: the store must exist; nothing but its coverage offer is read. */
export async function quoteCoverage(db: Db, storeId: string, cart: Cart): Promise<CoverageQuote[]> {
  await requireStore(db, storeId);
  return priceCart(await coverageProducts(db, storeId), cart);
}

export interface CoverageSettingsInput {
  type: CoverageType;
  enabled?: boolean | null;
  title?: string | null;
  description?: string | null;
  percentage?: string | null;
  minimumPrice?: string | null;
  maximumPrice?: string | null;
  eligibleProductIds?: string[] | null;
}

const MAX_TEXT = 500;

/** Changes one coverage type's settings (absent fields keep their value); made on first use. */
export async function updateCoverageSettings(db: Db, storeId: string, input: CoverageSettingsInput): Promise<CoverageProduct> {
  const current = (await coverageProducts(db, storeId)).find((p) => p.type === input.type)!;
  const issues: FieldIssue[] = [];
  const decimal = (field: 'percentage' | 'minimumPrice' | 'maximumPrice') => {
    const value = input[field];
    if (value === undefined || value === null) return current[field];
    const parsed = parseAmount(issues, field, value);
    if (parsed?.isNegative()) issues.push({ path: field, message: 'must not be negative' });
    if (parsed && parsed.decimalPlaces() > 4) issues.push({ path: field, message: 'has more than 4 decimal places' });
    return parsed ?? current[field];
  };
  const percentage = decimal('percentage');
  const minimumPrice = decimal('minimumPrice');
  const maximumPrice = decimal('maximumPrice');
  if (percentage.greaterThan(100)) issues.push({ path: 'percentage', message: 'must be at most 100' });
  if (maximumPrice.lessThan(minimumPrice)) issues.push({ path: 'maximumPrice', message: `must be at least the minimum price ${minimumPrice.toString()}` });
  const title = input.title ?? current.title;
  const description = input.description ?? current.description;
  if (title.trim() === '' || title.length > MAX_TEXT) issues.push({ path: 'title', message: `must be 1..${MAX_TEXT} characters` });
  if (description.length > MAX_TEXT) issues.push({ path: 'description', message: `must be at most ${MAX_TEXT} characters` });
  const eligibleProductIds = input.eligibleProductIds ?? current.eligibleProductIds;
  if (eligibleProductIds.some((id) => id.trim() === '')) issues.push({ path: 'eligibleProductIds', message: 'must not contain empty ids' });
  if (issues.length > 0) throw Invalid.of(issues);
  const data = { enabled: input.enabled ?? current.enabled, title, description, percentage, minimumPrice, maximumPrice, eligibleProductIds };
  return inTransaction(db, (tx) =>
    tx.coverageProduct.upsert({
      where: { storeId_type: { storeId, type: input.type } },
      create: { id: newId('coverageProduct'), storeId, type: input.type, ...data },
      update: data,
    }),
  );
}

export interface SoldLine {
  id: string;
  externalProductId: string;
  price: DecimalValue | null;
  quantity: number;
}

/**
 * Records the coverage an order sold: each line whose productId is one of the store's
 * coverage products. The premium (line price x quantity) is charged on the store's
 * invoice of the month. Runs inside the order's transaction.
 */
export async function recordCoverageSold(
  tx: Tx,
  order: { id: string; storeId: string; name: string; currency: string },
  lines: SoldLine[],
  now = new Date(),
): Promise<void> {
  const products = await tx.coverageProduct.findMany({
    where: { storeId: order.storeId, id: { in: [...new Set(lines.map((l) => l.externalProductId))] } },
  });
  if (products.length === 0) return;
  for (const line of lines) {
    const product = products.find((p) => p.id === line.externalProductId);
    if (!product) continue;
    const premium = (line.price ?? new Decimal(0)).times(line.quantity);
    await tx.orderCoverage.create({
      data: {
        id: newId('orderCoverage'),
        storeId: order.storeId,
        orderId: order.id,
        orderLineItemId: line.id,
        coverageProductId: product.id,
        type: product.type,
        premium,
        currency: order.currency,
        createdAt: now,
      },
    });
    await chargeInvoiceItem(tx, {
      storeId: order.storeId,
      currency: order.currency,
      kind: 'COVERAGE_PREMIUM',
      description: `${product.title} on order ${order.name}`,
      subjectId: order.id,
      amount: premium,
      occurredAt: now,
    });
  }
}

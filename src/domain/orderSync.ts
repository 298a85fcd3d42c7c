// Orders synced from a merchant's own commerce platform so they become returnable (the
// reference's custom returns integration). The platform sends the whole order on every
// create and update, keyed by its order id: the first sync creates the order exactly as
// order creation does, later ones rewrite it in place (orders.ts rewriteOrder) and make its
// fulfillments the ones sent. The order's totals are derived here from the parts sent
// (prices, discounts, tax lines, shipping lines), because returns refund from them.
import type { Order } from '../generated/prisma/client.ts';
import { InputIssues } from './inputChecks.ts';
import { Conflict, Invalid } from './errors.ts';
import { replaceFulfillments, type SyncedFulfillmentInput } from './fulfillments.ts';
import { Decimal, type DecimalValue } from './money.ts';
import {
  amount,
  insertOrder,
  parseOrder,
  rewriteOrder,
  type Amount,
  type OrderAddressInput,
  type OrderCustomerInput,
  type OrderInput,
  type OrderLineItemInput,
  type ParsedOrder,
} from './orders.ts';
import { inTransaction, type Db } from './tx.ts';

export interface OrderSyncLineInput extends Omit<OrderLineItemInput, 'discount'> {
  /** Discounts on the whole line (all its units). */
  discounts?: Amount[] | null;
  /** Taxes on the whole line (all its units). */
  taxes?: Amount[] | null;
}

export interface OrderSyncShippingLineInput {
  title: string;
  price: Amount;
  discounts?: Amount[] | null;
  taxes?: Amount[] | null;
}

export interface OrderSyncInput {
  /** The merchant's order id: the key of the sync. */
  orderId: string;
  createdAt: Date | string;
  currency?: string | null;
  customer?: OrderCustomerInput | null;
  lineItems: OrderSyncLineInput[];
  /** Discounts on the order as a whole (not on a line or on shipping). */
  orderDiscounts?: Amount[] | null;
  shippingLines?: OrderSyncShippingLineInput[] | null;
  shippingAddress?: OrderAddressInput | null;
  billingAddress?: OrderAddressInput | null;
  tags?: string[] | null;
  /** The order's complete set of fulfillments. */
  fulfillments?: SyncedFulfillmentInput[] | null;
}

export interface SyncedOrder {
  order: Order;
  created: boolean;
}

const ZERO = new Decimal(0);

function sum(issues: InputIssues, path: string, values: Amount[] | null | undefined): DecimalValue {
  return (values ?? []).reduce<DecimalValue>((total, value, i) => total.plus(amount(issues, `${path}.${i}`, value) ?? ZERO), ZERO);
}

/**
 * The order creation input the synced parts amount to: a line's discount is the sum of its
 * discounts; the subtotal is the lines' prices less their discounts; the tax is every line's
 * and shipping line's tax; the total is subtotal less order discounts plus shipping and tax.
 */
function orderInputOf(issues: InputIssues, input: OrderSyncInput): OrderInput {
  let subtotal = ZERO;
  let tax = ZERO;
  let discounts = ZERO;
  const lineItems = input.lineItems.map((line, i): OrderLineItemInput => {
    const { discounts: lineDiscounts, taxes, ...rest } = line;
    const discount = sum(issues, `lineItems.${i}.discounts`, lineDiscounts);
    const gross = (amount(issues, `lineItems.${i}.price`, line.price) ?? ZERO).times(Number.isFinite(line.quantity) ? line.quantity : 0);
    if (discount.greaterThan(gross)) issues.add(`lineItems.${i}.discounts`, 'must not exceed the price of the line');
    subtotal = subtotal.plus(gross.minus(discount));
    tax = tax.plus(sum(issues, `lineItems.${i}.taxes`, taxes));
    discounts = discounts.plus(discount);
    return { ...rest, discount: discount.toString() };
  });
  let shipping = ZERO;
  (input.shippingLines ?? []).forEach((line, i) => {
    const price = amount(issues, `shippingLines.${i}.price`, line.price) ?? ZERO;
    const discount = sum(issues, `shippingLines.${i}.discounts`, line.discounts);
    if (discount.greaterThan(price)) issues.add(`shippingLines.${i}.discounts`, 'must not exceed the price of the shipping line');
    shipping = shipping.plus(price.minus(discount));
    tax = tax.plus(sum(issues, `shippingLines.${i}.taxes`, line.taxes));
    discounts = discounts.plus(discount);
  });
  const orderDiscount = sum(issues, 'orderDiscounts', input.orderDiscounts);
  if (orderDiscount.greaterThan(subtotal)) issues.add('orderDiscounts', 'must not exceed the subtotal of the lines');
  const titles = (input.shippingLines ?? []).map((line) => line.title.trim()).filter((title) => title !== '');
  return {
    orderId: input.orderId,
    createdAt: input.createdAt,
    currency: input.currency,
    customer: input.customer,
    lineItems,
    shipping: { method: titles.length > 0 ? titles.join(', ') : null, cost: shipping.toString(), address: input.shippingAddress },
    billingAddress: input.billingAddress,
    tags: input.tags,
    subtotalPrice: subtotal.toString(),
    totalTax: tax.toString(),
    totalDiscount: discounts.plus(orderDiscount).toString(),
    totalPrice: Decimal.max(subtotal.minus(orderDiscount).plus(shipping).plus(tax), ZERO).toString(),
  };
}

/**
 * Creates the order, or rewrites the store's order with this orderId, with its fulfillments,
 * in one transaction. Two first syncs of one order racing: the loser's insert is a Conflict,
 * and it runs again as the update it now is.
 */
export async function syncOrder(db: Db, storeId: string, input: OrderSyncInput): Promise<SyncedOrder> {
  const issues = new InputIssues();
  const orderInput = orderInputOf(issues, input);
  let parsed: ParsedOrder | undefined;
  try {
    parsed = parseOrder(orderInput);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    issues.list.push(...error.issues);
  }
  issues.throwIfAny();
  const order = parsed!;
  const attempt = () =>
    inTransaction(db, async (tx) => {
      const existing = await tx.order.findUnique({ where: { storeId_externalId: { storeId, externalId: order.externalId } } });
      const written = existing ? await rewriteOrder(tx, storeId, existing, order) : await insertOrder(tx, storeId, order);
      await replaceFulfillments(tx, storeId, written, input.fulfillments ?? []);
      return { order: written, created: !existing };
    });
  try {
    return await attempt();
  } catch (error) {
    if (error instanceof Conflict && error.path === 'orderId') return attempt();
    throw error;
  }
}

// The money of a returned line: unit price, refund, tax and fees, rounded to the currency,
// and what processing a return pays out per item and outcome.
import { Prisma, type ReturnOutcome, type ReturnStatus } from '../../generated/prisma/client.ts';
import { Invalid, type FieldIssue } from '../errors.ts';
import { currencyExponent, ExactAmount, type DecimalValue } from '../money.ts';
import type { Plain } from '../../db/reads/plain.ts';
import { assertAllowed } from './status.ts';

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
  unitPrice: ExactAmount;
  /** The line's discount, pro-rated to the returned units. */
  discount: ExactAmount;
  /** The order's tax, pro-rated by the returned value's share of the order subtotal. */
  tax: ExactAmount;
  /** What returning these units is worth: price less discount plus tax. */
  amount: ExactAmount;
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
  const unitPrice = ExactAmount.of(price);
  const line = item.orderLineItem;
  if (!line) return { currency, unitPrice, discount: ExactAmount.ZERO, tax: ExactAmount.ZERO, amount: unitPrice.times(item.quantity) };
  const digits = currencyExponent(currency);
  const { totalTax, subtotalPrice } = line.order;
  const gross = unitPrice.times(item.quantity);
  const discount = line.discount === null ? ExactAmount.ZERO : ExactAmount.of(line.discount).proRata(item.quantity, Math.max(line.quantity, 1), digits);
  const net = gross.minus(discount);
  const subtotal = subtotalPrice === null ? null : ExactAmount.of(subtotalPrice);
  const tax = totalTax !== null && subtotal?.isPositive() ? ExactAmount.of(totalTax).proRata(net, subtotal, digits) : ExactAmount.ZERO;
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
): ExactAmount {
  if (item.outcome !== 'refund' && item.outcome !== 'credit') return ExactAmount.ZERO;
  return item.refundAmount === null ? amounts().amount : ExactAmount.of(item.refundAmount);
}

export interface ReturnTotals {
  /** Units at their price, before discounts and tax. */
  product: ExactAmount;
  discount: ExactAmount;
  tax: ExactAmount;
  /** product - discount + tax: the sum of the items' amounts. */
  total: ExactAmount;
}

/**
 * The parts of the return's total, over the items still on it. `amountsOf` gives an item's
 * amounts when a caller already has them (a read showing the items' amounts beside the totals).
 */
export function returnTotals<Item extends ItemAmountSource & { removedAt: Date | string | null }>(
  items: Item[],
  amountsOf: (item: Item) => ReturnItemAmounts = returnItemAmounts,
): ReturnTotals {
  let product = ExactAmount.ZERO;
  let discount = ExactAmount.ZERO;
  let tax = ExactAmount.ZERO;
  let total = ExactAmount.ZERO;
  for (const item of items) {
    if (item.removedAt !== null) continue;
    const amounts = amountsOf(item);
    product = product.plus(amounts.unitPrice.times(item.quantity));
    discount = discount.plus(amounts.discount);
    tax = tax.plus(amounts.tax);
    total = total.plus(amounts.amount);
  }
  return { product, discount, tax, total };
}

export interface RefundSplit {
  refund: ExactAmount;
  /** The item's tax in the share the refund pays of its amount (all of it for a full refund). */
  tax: ExactAmount;
  /** refund - tax. */
  item: ExactAmount;
}

/** An item's refund and its tax and item parts, so that refund = refunded item + refunded tax. */
export function itemRefundSplit(
  item: ItemAmountSource & { outcome: ReturnOutcome; refundAmount: DecimalValue | string | null },
  amounts: ReturnItemAmounts,
): RefundSplit {
  const refund = itemRefund(item, () => amounts);
  const tax = refund.isZero() || amounts.amount.isZero() ? ExactAmount.ZERO : amounts.tax.proRata(refund, amounts.amount, currencyExponent(amounts.currency));
  return { refund, tax, item: refund.minus(tax) };
}

/** What processing records for one item: its refund or credit, nothing for the other outcomes and for a rejected item. */
export interface ItemProcessing {
  itemId: string;
  outcome: ReturnOutcome;
  rejected: boolean;
  amount: ExactAmount;
}

export interface ProcessingAmounts {
  refund: ExactAmount;
  storeCredit: ExactAmount;
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
  let refund = ExactAmount.ZERO;
  let storeCredit = ExactAmount.ZERO;
  const rows = items.map((item) => {
    const outcome = chosen.get(item.id) ?? item.outcome;
    const counted = !rejectsReturn && !rejected.has(item.id) && (outcome === 'refund' || outcome === 'credit');
    const amount = counted ? returnItemAmounts(item).amount : ExactAmount.ZERO;
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
export function outcomeChoiceIssues(label: string, items: readonly { id: string; outcome: ReturnOutcome }[], choices: readonly OutcomeChoice[], path: (index: number) => string): FieldIssue[] {
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

// ExactAmount, the integer arithmetic of a return's amounts: exact at any size, rounding half up
// (a tie away from zero) to a currency's digits, and for the amounts the columns hold (19
// significant digits, 4 decimals) the very text the Decimal arithmetic it replaced wrote.
import { describe, expect, it } from 'vitest';
import { currencyExponent, Decimal, ExactAmount, formatAmount, type DecimalValue } from '../../src/domain/money.ts';
import { itemRefundSplit, returnItemAmounts, returnTotals } from '../../src/domain/returns/amounts.ts';

const exact = (value: string) => ExactAmount.of(value);

describe('ExactAmount', () => {
  it('reads stored text, Decimals, whole numbers and other decimal notations', () => {
    expect(exact('12.50').toFixed()).toBe('12.5');
    expect(exact('-3.0050').toFixed()).toBe('-3.005');
    expect(exact('0.0000').toFixed()).toBe('0');
    expect(ExactAmount.of(new Decimal('19.99')).toFixed(2)).toBe('19.99');
    expect(ExactAmount.of(7).toFixed()).toBe('7');
    expect(ExactAmount.of(0.1).toFixed()).toBe('0.1');
    expect(exact('1e-7').toFixed()).toBe('0.0000001');
  });

  it('adds and subtracts across scales without a binary fraction', () => {
    expect(exact('0.1').plus(exact('0.2')).toFixed()).toBe('0.3');
    expect(exact('1.0005').minus(exact('0.0005')).toFixed()).toBe('1');
    expect(exact('5').minus(exact('7.25')).toFixed(2)).toBe('-2.25');
  });

  it('stays exact past the 20 significant digits a Decimal rounds to', () => {
    const large = exact('123456789012345.6789').times(123456);
    expect(large.toFixed()).toBe('15241481344308148134.2784');
    expect(new Decimal('123456789012345.6789').times(123456).toFixed()).toBe('15241481344308148134');
    expect(exact('999999999999999.9999').proRata(exact('999999999999999.9999'), 3, 2).toFixed()).toBe('333333333333333333266666666666.67');
  });

  it('rounds a share half up, a tie away from zero, to 0, 2 or 3 digits', () => {
    expect(exact('100').proRata(1, 3, currencyExponent('JPY')).toFixed()).toBe('33');
    expect(exact('10.00').proRata(2, 3, 2).toFixed()).toBe('6.67');
    expect(exact('-10.00').proRata(2, 3, 2).toFixed()).toBe('-6.67');
    expect(exact('0.05').proRata(1, 2, 2).toFixed()).toBe('0.03');
    expect(exact('-0.05').proRata(1, 2, 2).toFixed()).toBe('-0.03');
    expect(exact('0.0499').proRata(1, 2, 2).toFixed()).toBe('0.02');
    expect(exact('1.000').proRata(1, 3, currencyExponent('KWD')).toFixed(3)).toBe('0.333');
    expect(exact('1.60').proRata(exact('18.00'), exact('16.00'), 2).toFixed()).toBe('1.8');
    expect(() => exact('1').proRata(1, exact('0.00'), 2)).toThrow(RangeError);
  });

  it('writes a fixed number of digits, rounding half up or padding', () => {
    expect(exact('2.345').toFixed(2)).toBe('2.35');
    expect(exact('-2.345').toFixed(2)).toBe('-2.35');
    expect(exact('2.344').toFixed(2)).toBe('2.34');
    expect(exact('3').toFixed(2)).toBe('3.00');
    expect(exact('0.5').toFixed(3)).toBe('0.500');
    expect(exact('0.004').toFixed(2)).toBe('0.00');
    expect(exact('1499.5').toFixed(0)).toBe('1500');
  });

  it('takes whole quantities only', () => {
    expect(() => exact('1.00').times(1.5)).toThrow(RangeError);
  });

  it("is formatted with at least the currency's digits, as a Decimal of the same value is", () => {
    for (const [value, currency] of [['12.5', 'USD'], ['1500', 'JPY'], ['0.1235', 'USD'], ['-4', 'KWD'], ['0', 'EUR'], ['7.10', 'BHD']] as const) {
      expect(formatAmount(exact(value), currency)).toBe(formatAmount(new Decimal(value), currency));
    }
  });
});

/** The Decimal arithmetic ExactAmount replaced, kept here as the reference its answers must equal. */
function decimalItemAmounts(price: string, discount: string | null, lineQuantity: number, quantity: number, totalTax: string | null, subtotal: string | null, currency: string) {
  const round = (value: DecimalValue) => value.toDecimalPlaces(currencyExponent(currency), Decimal.ROUND_HALF_UP);
  const unitPrice = new Decimal(price);
  const discounted = round(new Decimal(discount ?? 0).times(quantity).dividedBy(Math.max(lineQuantity, 1)));
  const net = unitPrice.times(quantity).minus(discounted);
  const tax = totalTax !== null && subtotal !== null && new Decimal(subtotal).greaterThan(0) ? round(new Decimal(totalTax).times(net).dividedBy(subtotal)) : new Decimal(0);
  const amount = net.plus(tax);
  const refundTax = amount.isZero() ? new Decimal(0) : round(tax.times(amount).dividedBy(amount));
  return { unitPrice, discount: discounted, tax, amount, refundTax };
}

describe("a returned item's amounts", () => {
  it('are written as the Decimal arithmetic wrote them, for a spread of prices, discounts, taxes and currencies', () => {
    const prices = ['0', '0.01', '12.5', '33.35', '19.9999', '1000', '12345678901234.5678'];
    const discounts = [null, '0', '10.00', '0.03', '7.7777'];
    const taxes: [string | null, string | null][] = [[null, null], ['9.87', '116.03'], ['1.60', '16.00'], ['0.05', '0.20'], ['2.00', '0'], ['123.4567', '98765.4321']];
    let compared = 0;
    for (const currency of ['USD', 'JPY', 'KWD']) {
      for (const price of prices) {
        for (const discount of discounts) {
          for (const [totalTax, subtotalPrice] of taxes) {
            for (const [lineQuantity, quantity] of [[1, 1], [3, 2], [7, 3], [0, 1]]) {
              const item = { quantity, outcome: 'refund' as const, refundAmount: null, orderLineItem: { price, discount, quantity: lineQuantity, order: { currency, totalTax, subtotalPrice } } };
              const amounts = returnItemAmounts(item);
              const reference = decimalItemAmounts(price, discount, lineQuantity, quantity, totalTax, subtotalPrice, currency);
              const split = itemRefundSplit(item, amounts);
              const written = (value: ExactAmount | DecimalValue) => formatAmount(value, currency);
              expect([amounts.unitPrice, amounts.discount, amounts.tax, amounts.amount, split.tax].map(written)).toEqual(
                [reference.unitPrice, reference.discount, reference.tax, reference.amount, reference.refundTax].map(written),
              );
              compared++;
            }
          }
        }
      }
    }
    expect(compared).toBe(3 * 7 * 5 * 6 * 4);
  });

  it("sum to the return's totals over the items still on it", () => {
    const line = (price: string) => ({ price, discount: '1.00', quantity: 3, order: { currency: 'USD', totalTax: '9.87', subtotalPrice: '116.03' } });
    const items = [
      { quantity: 2, removedAt: null, orderLineItem: line('33.35') },
      { quantity: 1, removedAt: null, orderLineItem: line('12.99') },
      { quantity: 1, removedAt: '2026-11-01T00:00:00.000Z', orderLineItem: line('500.00') },
    ];
    const totals = returnTotals(items);
    expect([totals.product, totals.discount, totals.tax, totals.total].map((value) => value.toFixed(2))).toEqual(['79.69', '1.00', '6.70', '85.39']);
  });
});

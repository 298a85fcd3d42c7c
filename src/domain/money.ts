// Exact money handling. Amounts are Prisma Decimals (decimal.js) in the currency's
// major unit; nothing here ever goes through a binary float.
import { Prisma } from '../generated/prisma/client.ts';

export type DecimalValue = Prisma.Decimal;
export const Decimal = Prisma.Decimal;

const EXPONENTS: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
};

/** Number of minor-unit digits of an ISO 4217 currency (2 unless listed). */
export function currencyExponent(currency: string): number {
  return EXPONENTS[currency.toUpperCase()] ?? 2;
}

export function isCurrencyCode(value: string): boolean {
  return /^[A-Z]{3}$/.test(value);
}

/**
 * Decimal string of an amount with the currency's digits ("63.30", "1500" for JPY);
 * more digits are kept when the stored value has them, so nothing is rounded away.
 */
export function formatAmount(amount: DecimalValue | string | number, currency: string): string {
  if (typeof amount === 'string' && PLAIN_DECIMAL.test(amount)) return padFraction(amount, currencyExponent(currency));
  const value = new Decimal(amount);
  const digits = Math.max(currencyExponent(currency), value.decimalPlaces());
  return value.toFixed(digits);
}

// The text reads answer amounts in (PostgreSQL's numeric output): padded as text, since a
// Decimal per amount is most of what formatting a page of them costs.
const PLAIN_DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;

function padFraction(text: string, exponent: number): string {
  const point = text.indexOf('.');
  const fractionDigits = point === -1 ? 0 : text.length - point - 1;
  if (fractionDigits >= exponent) return text;
  return (point === -1 && exponent > 0 ? `${text}.` : text) + '0'.repeat(exponent - fractionDigits);
}

/** Parses a JSON number or decimal string input into an exact Decimal (via its text form). */
export function toDecimal(value: number | string): DecimalValue {
  return new Decimal(typeof value === 'number' ? String(value) : value);
}

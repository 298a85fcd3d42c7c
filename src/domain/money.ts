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
  const value = new Decimal(amount);
  const digits = Math.max(currencyExponent(currency), value.decimalPlaces());
  return value.toFixed(digits);
}

/** Parses a JSON number or decimal string input into an exact Decimal (via its text form). */
export function toDecimal(value: number | string): DecimalValue {
  return new Decimal(typeof value === 'number' ? String(value) : value);
}

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

// The last currency asked about: a page formats every amount of it in one currency, and the
// lookup (an upper-case copy per amount) showed in the warehouse list's profile.
let lastCurrency = 'USD';
let lastExponent = 2;

/** Number of minor-unit digits of an ISO 4217 currency (2 unless listed). */
export function currencyExponent(currency: string): number {
  if (currency !== lastCurrency) {
    lastExponent = EXPONENTS[currency.toUpperCase()] ?? 2;
    lastCurrency = currency;
  }
  return lastExponent;
}

export function isCurrencyCode(value: string): boolean {
  return /^[A-Z]{3}$/.test(value);
}

/**
 * Decimal string of an amount with the currency's digits ("63.30", "1500" for JPY);
 * more digits are kept when the stored value has them, so nothing is rounded away.
 */
export function formatAmount(amount: ExactAmount | DecimalValue | string | number, currency: string): string {
  if (typeof amount === 'string' && PLAIN_DECIMAL.test(amount)) return padFraction(amount, currencyExponent(currency));
  if (amount instanceof ExactAmount) return padFraction(amount.toFixed(), currencyExponent(currency));
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

const TEN_POWERS: bigint[] = [1n];
function tenToThe(exponent: number): bigint {
  while (TEN_POWERS.length <= exponent) TEN_POWERS.push(TEN_POWERS[TEN_POWERS.length - 1] * 10n);
  return TEN_POWERS[exponent];
}

/** numerator / denominator rounded to the nearest integer, a tie away from zero (Decimal.ROUND_HALF_UP). */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator < 0n) {
    numerator = -numerator;
    denominator = -denominator;
  }
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (2n * (remainder < 0n ? -remainder : remainder) < denominator) return quotient;
  return numerator < 0n ? quotient - 1n : quotient + 1n;
}

const SIGNED_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * An exact amount: `units` of 10^-scale (12.50 is 1250n at scale 2), for the arithmetic the
 * domain does on money: sums, a quantity's multiple and a pro-rated share rounded half up to
 * a currency's digits. Integers throughout, so it is exact at any size (a Decimal rounds every
 * step to 20 significant digits) and cheap: a page of returns does this for every item, where
 * a Decimal per step was most of the page's arithmetic.
 */
export class ExactAmount {
  static readonly ZERO = new ExactAmount(0n, 0);

  private constructor(
    private readonly units: bigint,
    private readonly scale: number,
  ) {}

  /** The amount a stored value, a Decimal or an integer count (a quantity) holds. */
  static of(value: ExactAmount | DecimalValue | string | number): ExactAmount {
    if (value instanceof ExactAmount) return value;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return new ExactAmount(BigInt(value), 0);
    const text = typeof value === 'string' && SIGNED_DECIMAL.test(value) ? value : new Decimal(value).toFixed();
    const [, sign, whole, fraction = ''] = SIGNED_DECIMAL.exec(text)!;
    const units = BigInt(whole + fraction);
    return new ExactAmount(sign ? -units : units, fraction.length);
  }

  /** Both amounts' units at the larger of their scales. */
  private aligned(other: ExactAmount): [bigint, bigint, number] {
    if (this.scale === other.scale) return [this.units, other.units, this.scale];
    if (this.scale > other.scale) return [this.units, other.units * tenToThe(this.scale - other.scale), this.scale];
    return [this.units * tenToThe(other.scale - this.scale), other.units, other.scale];
  }

  plus(other: ExactAmount): ExactAmount {
    const [a, b, scale] = this.aligned(other);
    return new ExactAmount(a + b, scale);
  }

  minus(other: ExactAmount): ExactAmount {
    const [a, b, scale] = this.aligned(other);
    return new ExactAmount(a - b, scale);
  }

  /** The amount `quantity` times (a whole number of units). */
  times(quantity: number): ExactAmount {
    if (!Number.isSafeInteger(quantity)) throw new RangeError(`a quantity must be a whole number, got ${quantity}`);
    return new ExactAmount(this.units * BigInt(quantity), this.scale);
  }

  /** The share `part / whole` of the amount, rounded half up to `digits` decimal places. */
  proRata(part: ExactAmount | number, whole: ExactAmount | number, digits: number): ExactAmount {
    const p = ExactAmount.of(part);
    const w = ExactAmount.of(whole);
    if (w.units === 0n) throw new RangeError('a share of nothing');
    // this * part / whole * 10^digits, each term's scale moved to the side where it multiplies.
    const shift = w.scale + digits - this.scale - p.scale;
    const numerator = this.units * p.units * (shift > 0 ? tenToThe(shift) : 1n);
    const denominator = w.units * (shift < 0 ? tenToThe(-shift) : 1n);
    return new ExactAmount(divideHalfUp(numerator, denominator), digits);
  }

  /** Rounded half up to `digits` decimal places (unchanged when it has no more). */
  roundTo(digits: number): ExactAmount {
    if (this.scale <= digits) return this;
    return new ExactAmount(divideHalfUp(this.units, tenToThe(this.scale - digits)), digits);
  }

  isZero(): boolean {
    return this.units === 0n;
  }

  isPositive(): boolean {
    return this.units > 0n;
  }

  /**
   * Plain decimal text: with `digits` decimal places (rounded half up, or padded), else with as
   * many as the value needs ("12.5", "3"), as a Decimal's toFixed writes them.
   */
  toFixed(digits?: number): string {
    let { units, scale } = digits === undefined ? this : this.roundTo(digits);
    if (digits === undefined) {
      while (scale > 0 && units % 10n === 0n) {
        units /= 10n;
        scale--;
      }
    }
    const negative = units < 0n;
    const text = (negative ? -units : units).toString();
    const padded = text.length > scale ? text : '0'.repeat(scale - text.length + 1) + text;
    const point = padded.length - scale;
    const plain = scale === 0 ? padded : `${padded.slice(0, point)}.${padded.slice(point)}`;
    const fixed = digits !== undefined && digits > scale ? plain + (scale === 0 ? '.' : '') + '0'.repeat(digits - scale) : plain;
    return negative ? `-${fixed}` : fixed;
  }

  toString(): string {
    return this.toFixed();
  }
}

/** Parses a JSON number or decimal string input into an exact Decimal (via its text form). */
export function toDecimal(value: number | string): DecimalValue {
  return new Decimal(typeof value === 'number' ? String(value) : value);
}

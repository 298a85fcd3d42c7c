// What a read through `reads` (reader.ts) answers, as a type: Prisma's result with every
// timestamp and exact amount as text and every 64-bit integer as text. Code that serves both
// those rows and Prisma's own takes `Row | Plain<Row>`.
import { Prisma } from '../../generated/prisma/client.ts';

/** A row (or rows) of Prisma's result type as a read answers it, relations included. */
export type Plain<T> = T extends readonly (infer I)[]
  ? Plain<I>[]
  : T extends Date | Prisma.Decimal | bigint
    ? string
    : T extends object
      ? { [K in keyof T]: Plain<T[K]> }
      : T;


/**
 * A row Prisma answered (a write's result) in the form `reads` answers it, so resolvers see
 * one form whichever path brought the row: each Date, Decimal and bigint becomes its text.
 */
export function toPlain<T>(value: T): Plain<T> {
  return plainValue(value) as Plain<T>;
}

function plainValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? value.toString() : value;
  if (value instanceof Date) return value.toISOString();
  if (Prisma.Decimal.isDecimal(value)) return value.toFixed();
  if (Array.isArray(value)) return value.map(plainValue);
  const plain: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) plain[key] = plainValue(item);
  return plain;
}

// Scalars shared by every type group, and the Money object.
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { builder } from './builder.ts';
import { formatAmount, type DecimalValue, type ExactAmount } from '../domain/money.ts';

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** True when YYYY-MM-DD names a day of the calendar (no 30 February). */
function isCalendarDay(ymd: string): boolean {
  const date = new Date(`${ymd}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === ymd;
}

function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string' || !ISO_DATE_TIME.test(value) || Number.isNaN(Date.parse(value)) || !isCalendarDay(value.slice(0, 10))) {
    throw badInput(`DateTime must be an ISO 8601 date-time with a time zone, got ${JSON.stringify(value)}`);
  }
  return new Date(value);
}

function parseDate(value: unknown): Date {
  if (typeof value !== 'string' || !ISO_DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw badInput(`Date must be YYYY-MM-DD, got ${JSON.stringify(value)}`);
  }
  if (!isCalendarDay(value)) throw badInput(`Date ${value} does not exist`);
  return new Date(`${value}T00:00:00Z`);
}

builder.scalarType('DateTime', {
  description:
    'ISO 8601 date-time. Answered in UTC with milliseconds, e.g. 2026-11-22T10:00:00.000Z; taken with a required time zone (Z or ±hh:mm), ' +
    'else BAD_USER_INPUT.',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: parseDateTime,
});

builder.scalarType('Date', {
  description: 'Calendar date in ISO 8601 form YYYY-MM-DD, e.g. 2026-11-22; a day that does not exist (2026-02-30) gives BAD_USER_INPUT.',
  // A date column reads as the ISO 8601 instant of its midnight (UTC), from Prisma or from `reads`.
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)).slice(0, 10),
  parseValue: parseDate,
});

const DECIMAL = /^-?\d{1,15}(\.\d{1,4})?$/;

builder.scalarType('Decimal', {
  description:
    'Exact decimal number as a string, e.g. "12.50", never binary floating point. Taken as a string or number of at most 15 integer digits ' +
    'and 4 decimal places, optionally negative (a field may allow less), else BAD_USER_INPUT.',
  serialize: (value) => (typeof value === 'string' ? value : value.toFixed()),
  parseValue: (value) => {
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    if (typeof text !== 'string' || !DECIMAL.test(text)) {
      throw badInput(`Decimal must be a decimal number with at most 4 fractional digits, got ${JSON.stringify(value)}`);
    }
    return text;
  },
});

function literalToJson(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(literalToJson);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalToJson(f.value)]));
    default:
      throw badInput('JSON literals cannot contain variables');
  }
}

builder.scalarType('JSON', {
  description: 'Any JSON value: object, array, string, number, boolean or null; the field using it says what shape it holds.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literalToJson,
});

export interface MoneyShape {
  amount: string;
  currency: string;
}

/** Money from a stored decimal; null when the amount is unset. */
export function money(amount: ExactAmount | DecimalValue | string | null | undefined, currency: string): MoneyShape | null {
  if (amount === null || amount === undefined) return null;
  return { amount: formatAmount(amount, currency), currency };
}

export const Money = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An exact amount of money in one currency.',
  fields: (t) => ({
    amount: t.expose('amount', {
      type: 'Decimal',
      nullable: false,
      description: 'Decimal amount in `currency`, not minor units, with at least the currency\'s decimal digits, e.g. "12.50" for USD or "1200" for JPY.',
    }),
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 currency code, e.g. "USD"' }),
  }),
});

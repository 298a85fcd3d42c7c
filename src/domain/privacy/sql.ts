// SQL that finds a person's records and writes rows as JSON, shared by the export and the erasure.
import type { Db, Tx } from '../tx.ts';
import { type Person, MAX_PHONE_NUMBERS } from './person.ts';

// ------------------------------------------------------------------ SQL building

/** Positional parameters of one statement, each cast to its type where it is used. */
export class Statement {
  readonly values: unknown[] = [];

  param(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

/** The digits a phone number is matched by: its last nine, so a number written with or without its country code matches. */
function phoneDigits(phoneNumber: string): string | null {
  const digits = phoneNumber.replace(/\D/g, '');
  return digits.length >= 7 ? digits.slice(-9) : null;
}

/**
 * An order of nobody else (no e-mail, no customer) with one of the person's phone numbers: found
 * through the search document's trigram index (it holds the number's digits), then compared by
 * the last nine digits (fewer when the order's number is shorter), so a number written with or
 * without its country code or trunk prefix ("+44 20 ...", "020 ...") matches.
 */
function phoneMatch(q: Statement, alias: string, phoneNumbers: string[]): string {
  const digits = [...new Set(phoneNumbers.slice(0, MAX_PHONE_NUMBERS).map(phoneDigits).filter((d): d is string => d !== null))];
  if (digits.length === 0) return 'false';
  const inDocument = digits.map((d) => `${alias}."searchText" LIKE ${q.param(`%${d.slice(-7)}%`, 'text')}`).join(' OR ');
  const full = q.param(phoneNumbers.map((p) => p.replace(/\D/g, '')), 'text[]');
  return `(${alias}."customerEmail" IS NULL AND ${alias}."customerId" IS NULL AND (${inDocument}) AND EXISTS (
    SELECT 1 FROM unnest(${full}) AS p(digits), search_digits(${alias}."customerPhone") AS d(digits)
    WHERE length(d.digits) >= 7 AND right(p.digits, least(9, length(d.digits))) = right(d.digits, 9)))`;
}

/** The person's record sets (their ids), as common table expressions every export page and erasure starts from. */
export function personSets(q: Statement, storeId: string, person: Person): string {
  const store = q.param(storeId, 'text');
  const customers = q.param(person.customerIds, 'text[]');
  const emails = q.param(person.emails, 'text[]');
  return `person_customers AS (SELECT unnest(${customers}) AS id),
person_orders AS (
  SELECT o.id FROM "Order" o
  WHERE o."storeId" = ${store} AND (o."customerId" = ANY(${customers}) OR o."customerEmail" = ANY(${emails}) OR ${phoneMatch(q, 'o', person.phoneNumbers)})),
person_fulfillments AS (SELECT f.id FROM "Fulfillment" f WHERE f."orderId" IN (SELECT id FROM person_orders)),
person_returns AS (
  SELECT r.id FROM "Return" r
  WHERE r."storeId" = ${store} AND (r."orderId" IN (SELECT id FROM person_orders) OR (r."orderId" IS NULL AND r."customerEmail" = ANY(${emails})))),
person_custom_events AS (SELECT e.id FROM "CustomEvent" e WHERE e."customerId" = ANY(${customers})),
person_storefront_events AS (
  SELECT e.id FROM "StorefrontEvent" e WHERE e."storeId" = ${store} AND (e."customerId" = ANY(${customers}) OR e."customerEmail" = ANY(${emails}))),
person_subjects AS (
  SELECT id FROM person_customers UNION ALL SELECT id FROM person_orders UNION ALL SELECT id FROM person_fulfillments
  UNION ALL SELECT id FROM person_returns UNION ALL SELECT id FROM person_custom_events UNION ALL SELECT id FROM person_storefront_events),
person_events AS (SELECT e.id FROM "Event" e WHERE e."storeId" = ${store} AND e."subjectId" IN (SELECT id FROM person_subjects)),
person_audit_entries AS (
  SELECT a.id FROM "AuditEntry" a
  WHERE a."storeId" = ${store} AND (${AUDITED_PARENTS.map(
    ([kind, set]) =>
      `(a."objectKind" = '${kind}' AND a."objectId" IN (SELECT id FROM ${set})) OR (a."parentKind" = '${kind}' AND a."parentId" IN (SELECT id FROM ${set}))`,
  ).join(' OR ')}))`;
}

/**
 * The person's records whose audit entries, and their parts' (an order's lines, a customer's
 * custom field values and consents), are the person's. Storefront events are not audited.
 */
const AUDITED_PARENTS = [
  ['Customer', 'person_customers'],
  ['Order', 'person_orders'],
  ['Return', 'person_returns'],
] as const;

// ------------------------------------------------------------------ rows as JSON

interface ColumnType {
  name: string;
  type: string;
}

let catalog: Promise<Map<string, ColumnType[]>> | undefined;

/** The tables' columns and types, read once: a row is exported with every column it has, however the tables grow. */
export function columnsOf(db: Db | Tx): Promise<Map<string, ColumnType[]>> {
  catalog ??= db
    .$queryRawUnsafe<{ table: string; name: string; type: string }[]>(
      `SELECT table_name AS "table", column_name AS name, data_type AS type FROM information_schema.columns
       WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    )
    .then((rows) => {
      const tables = new Map<string, ColumnType[]>();
      for (const row of rows) tables.set(row.table, [...(tables.get(row.table) ?? []), { name: row.name, type: row.type }]);
      return tables;
    })
    .catch((error: unknown) => {
      catalog = undefined;
      throw error;
    });
  return catalog;
}

const UTC_ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
/** jsonb_build_object takes at most 100 arguments: longer rows are built in parts. */
const PAIRS_PER_OBJECT = 40;

/** A column's value as the export writes it: timestamps ISO 8601 in UTC, dates YYYY-MM-DD, amounts and counters as exact text. */
function exported(alias: string, column: ColumnType): string {
  const ref = `${alias}."${column.name}"`;
  if (column.type.startsWith('timestamp')) return `to_char(${ref}, ${UTC_ISO})`;
  if (column.type === 'date') return `to_char(${ref}, 'YYYY-MM-DD')`;
  if (column.type === 'numeric' || column.type === 'bigint' || column.type === 'USER-DEFINED') return `${ref}::text`;
  if (column.type === 'bytea') return `encode(${ref}, 'base64')`;
  return ref;
}

/** A child list of an exported record: the rows of `table` belonging to the parent row, in order. */
export interface Child {
  name: string;
  table: string;
  parentColumn: string;
  orderBy: readonly string[];
  children?: readonly Child[];
}

/** The search documents are the rows' own text again, folded: not exported. */
const NOT_EXPORTED = new Set(['searchText']);

export function rowJson(tables: Map<string, ColumnType[]>, table: string, alias: string, children: readonly Child[] = [], depth = 0): string {
  const columns = (tables.get(table) ?? []).filter((c) => !NOT_EXPORTED.has(c.name));
  if (columns.length === 0) throw new Error(`no table ${table}`);
  const pairs = columns.map((c) => `'${c.name}', ${exported(alias, c)}`);
  for (const child of children) {
    const inner = `c${depth}_${child.name}`;
    const order = child.orderBy.map((column) => `${inner}."${column}"`).join(', ');
    pairs.push(
      `'${child.name}', (SELECT coalesce(jsonb_agg(${rowJson(tables, child.table, inner, child.children, depth + 1)} ORDER BY ${order}), '[]'::jsonb)
        FROM "${child.table}" ${inner} WHERE ${inner}."${child.parentColumn}" = ${alias}.id)`,
    );
  }
  const parts: string[] = [];
  for (let i = 0; i < pairs.length; i += PAIRS_PER_OBJECT) parts.push(`jsonb_build_object(${pairs.slice(i, i + PAIRS_PER_OBJECT).join(', ')})`);
  return parts.join(' || ');
}

// A person's data exported page by page (GDPR articles 15 and 20).
import { createHash } from 'node:crypto';
import type { Db, Tx } from '../tx.ts';
import type { Person, PersonKey } from './person.ts';
import { Statement, personSets, columnsOf, rowJson, type Child } from './sql.ts';

/** The export document's `format` and `version`: a change of its shape is a new version. */
export const EXPORT_FORMAT = 'customer-data-export';
export const EXPORT_VERSION = 1;

// ------------------------------------------------------------------ export

/** The kinds of record an export holds, in the order it lists them; each record's `data` is its row with these children. */
export const EXPORT_KINDS = [
  {
    kind: 'customer',
    table: 'Customer',
    set: 'person_customers',
    description: 'A customer that is the person, with `customFieldValues` (each with its field\'s `field` name and `type`), `phoneNumberKeys` and `subscriptions`',
    children: [
      { name: 'customFieldValues', table: 'CustomFieldValue', parentColumn: 'customerId', orderBy: ['declarationId'] },
      { name: 'phoneNumberKeys', table: 'CustomerPhoneNumber', parentColumn: 'customerId', orderBy: ['phoneNumber'] },
      { name: 'subscriptions', table: 'CustomerSubscription', parentColumn: 'customerId', orderBy: ['channel', 'kind'] },
    ],
  },
  {
    kind: 'order',
    table: 'Order',
    set: 'person_orders',
    description: 'An order, with its `lineItems`, `fulfillmentGroups`, `fulfillments` (each with `lineItems` and `trackingEvents`) and `coverages`',
    children: [
      { name: 'lineItems', table: 'OrderLineItem', parentColumn: 'orderId', orderBy: ['position', 'id'] },
      { name: 'fulfillmentGroups', table: 'FulfillmentGroup', parentColumn: 'orderId', orderBy: ['createdAt', 'id'] },
      {
        name: 'fulfillments',
        table: 'Fulfillment',
        parentColumn: 'orderId',
        orderBy: ['createdAt', 'id'],
        children: [
          { name: 'lineItems', table: 'FulfillmentLineItem', parentColumn: 'fulfillmentId', orderBy: ['id'] },
          { name: 'trackingEvents', table: 'FulfillmentTrackingEvent', parentColumn: 'fulfillmentId', orderBy: ['occurredAt', 'id'] },
        ],
      },
      { name: 'coverages', table: 'OrderCoverage', parentColumn: 'orderId', orderBy: ['createdAt', 'id'] },
    ],
  },
  {
    kind: 'return',
    table: 'Return',
    set: 'person_returns',
    description: 'A return, with its `items`, `notes` and `statusChanges`',
    children: [
      { name: 'items', table: 'ReturnItem', parentColumn: 'returnId', orderBy: ['createdAt', 'id'] },
      { name: 'notes', table: 'ReturnNote', parentColumn: 'returnId', orderBy: ['createdAt', 'id'] },
      { name: 'statusChanges', table: 'ReturnStatusChange', parentColumn: 'returnId', orderBy: ['createdAt', 'id'] },
    ],
  },
  { kind: 'custom_event', table: 'CustomEvent', set: 'person_custom_events', description: 'A custom event about the person', children: [] },
  { kind: 'storefront_event', table: 'StorefrontEvent', set: 'person_storefront_events', description: 'A storefront (web pixel) event, its payload as sent', children: [] },
  {
    kind: 'webhook_event',
    table: 'Event',
    set: 'person_events',
    description: 'An outbox event about one of the records above (its `data` is the body its webhook deliveries send), with its `deliveries` (each with its `attempts`)',
    children: [
      {
        name: 'deliveries',
        table: 'WebhookDelivery',
        parentColumn: 'eventId',
        orderBy: ['sequence'],
        children: [{ name: 'attempts', table: 'DeliveryAttempt', parentColumn: 'deliveryId', orderBy: ['attemptNumber'] }],
      },
    ],
  },
  {
    kind: 'audit_entry',
    table: 'AuditEntry',
    set: 'person_audit_entries',
    description: "An audit trail entry of a change to one of the person's customers, orders or returns (or their parts): who changed what, with the values before and after",
    children: [],
    numericIds: true,
  },
] as const satisfies readonly { kind: string; table: string; set: string; description: string; children: readonly Child[]; numericIds?: boolean }[];

export type ExportKind = (typeof EXPORT_KINDS)[number]['kind'];

export interface ExportRecord {
  kind: ExportKind;
  id: string;
  data: Record<string, unknown>;
}

/** A position in an export: after the record `id` of the kind at `kindIndex`. */
export interface ExportPosition {
  kindIndex: number;
  id: string;
}

/**
 * The person's records after `after` (from the start when null), at most `limit` of them, and
 * whether more follow. Records are listed kind by kind, by id within a kind, each kind read by
 * keyset from where the page starts, so a page reads no more rows than it answers (plus one).
 */
export async function exportPage(
  db: Db | Tx,
  storeId: string,
  person: Person,
  after: ExportPosition | null,
  limit: number,
): Promise<{ records: ExportRecord[]; hasMore: boolean }> {
  const tables = await columnsOf(db);
  const records: ExportRecord[] = [];
  for (let kindIndex = after?.kindIndex ?? 0; kindIndex < EXPORT_KINDS.length && records.length <= limit; kindIndex++) {
    const { kind, table, set, children } = EXPORT_KINDS[kindIndex];
    const idType = 'numericIds' in EXPORT_KINDS[kindIndex] ? 'bigint' : 'text';
    const q = new Statement();
    const sets = personSets(q, storeId, person);
    const from = after && after.kindIndex === kindIndex ? `AND x.id > ${q.param(after.id, idType)}` : '';
    const rows = await db.$queryRawUnsafe<{ id: string; data: Record<string, unknown> | string }[]>(
      `WITH ${sets}
       SELECT x.id::text AS id, ${rowJson(tables, table, 'x', children)} AS data FROM "${table}" x
       WHERE x.id IN (SELECT id FROM ${set}) ${from} ORDER BY x.id LIMIT ${q.param(limit + 1 - records.length, 'int')}`,
      ...q.values,
    );
    for (const row of rows) records.push({ kind, id: row.id, data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data });
  }
  return { records: records.slice(0, limit), hasMore: records.length > limit };
}

/** Names an export's subject in its cursors without writing the e-mail into them. */
export function personDigest(storeId: string, key: PersonKey): string {
  return createHash('sha256').update(`${storeId}\n${JSON.stringify(key)}`).digest('base64url').slice(0, 16);
}

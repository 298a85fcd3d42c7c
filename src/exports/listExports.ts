// Exports of the lists a merchant searches (returns, orders, customers, products, inventory
// levels, audit entries) as CSV or JSON Lines, for a spreadsheet or a script: every record the
// list's search finds, one row each, in the list's order. Each page is read through the list's
// own v3 connection with the caller's context (so its scopes and its store hold, as on every
// door), keyset-paged by `after` cursors (connectionPages.ts), and written before the next one
// is read (streamedAnswer.ts): memory holds about a page however long the export.
// The v3 door's /v3/rest/exports routes and the dashboard's Export links both answer with it;
// each door says how its refusals look.
import type { DoorResponse } from '../http/door.ts';
import { csvLayout } from './csv.ts';
import { connectionPages, WHOLE_CONNECTION_PAGE_SIZE } from '../schema/connectionPages.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { defineOperation, type Operation, type OperationOutcome } from '../schema/execute.ts';
import { streamedAnswer, type AnswerLayout } from '../http/streamedAnswer.ts';

type Money = { amount: string; currency: string } | null;

/** What a cell holds: text, a count, a flag, or nothing (an empty CSV cell, null in JSON). */
type CellValue = string | number | boolean | null;

export interface ExportColumn<N> {
  /** The JSON Lines member. */
  key: string;
  /** The CSV header a spreadsheet shows. */
  header: string;
  /** One line for the README and the API document. */
  description: string;
  value(node: N): CellValue;
}

/** A query parameter an export takes (besides `query`), read into the list operation's variables. */
export interface ExportParameter {
  name: string;
  description: string;
  /** Whether it may be given more than once (each value is one more choice). */
  repeated?: boolean;
}

export interface ListExport<N> {
  /** The list's name in paths and file names (`inventory-levels`). */
  name: string;
  /** The scope its connection needs. */
  scope: string;
  /** How its rows are ordered: the list's own order. */
  order: string;
  /** Its parameters besides `query` (the list's search syntax), which every export but the audit trail's takes. */
  parameters: ExportParameter[];
  searchable: boolean;
  operation: Operation;
  /** The operation's variables for the parameters given; unknown values are the schema's to refuse. */
  variables(parameters: URLSearchParams): Record<string, unknown>;
  nodes(data: Record<string, unknown>): { nodes: N[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  columns: ExportColumn<N>[];
}

export const EXPORT_FORMATS = {
  csv: { contentType: 'text/csv; charset=utf-8; header=present', description: 'CSV (RFC 4180, UTF-8, CRLF line ends) with a header row of the columns\' names' },
  jsonl: { contentType: 'application/x-ndjson', description: 'JSON Lines: one JSON object per record and line, members named by the columns\' keys' },
} as const;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

/**
 * Records per page read. The export, not its client, chooses it, so it may be larger than the
 * door's page limit; larger pages are fewer statements (connectionPages.ts says what bounds it).
 */
const EXPORT_PAGE_SIZE = WHOLE_CONNECTION_PAGE_SIZE;

const PAGE_INFO = 'pageInfo { hasNextPage endCursor }';
const amount = (money: Money) => money?.amount ?? null;
const joined = (values: readonly (string | null)[]) => values.filter((value): value is string => Boolean(value)).join(', ') || null;
const lower = (value: string | null) => value?.toLowerCase() ?? null;

function connectionOf<N>(field: string) {
  return (data: Record<string, unknown>) => data[field] as { nodes: N[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

/** `true` or `false` as a boolean; any other text handed on for the schema to refuse. */
function booleanOf(value: string | null): boolean | string | null {
  return value === 'true' ? true : value === 'false' ? false : value;
}

/** The `query` text, when given and not blank. */
function searchOf(parameters: URLSearchParams): string | null {
  const query = parameters.get('query');
  return query?.trim() ? query : null;
}

// ------------------------------------------------------------------ returns

interface ReturnNode {
  id: string;
  number: number;
  status: string;
  type: string;
  order: { name: string; submittedCustomer: { name: string | null; email: string | null } | null } | null;
  customerEmail: string | null;
  customerFirstName: string | null;
  customerLastName: string | null;
  currency: string;
  total: Money;
  totalRefund: Money;
  totalStoreCredit: Money;
  items: { quantity: number; reason: string | null }[];
  carrier: string | null;
  trackingNumber: string | null;
  externalReferenceId: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

const RETURNS: ListExport<ReturnNode> = {
  name: 'returns',
  scope: 'returns_read',
  order: 'most recently changed first, as the returns list (sort_key and reverse change it)',
  searchable: true,
  parameters: [
    { name: 'status', repeated: true, description: 'Only returns of these statuses (OPEN, FLAGGED, COMPLETE, ...); every status when absent' },
    { name: 'sort_key', description: 'UPDATED_AT (the default) or CREATED_AT' },
    { name: 'reverse', description: 'true lists the oldest first' },
  ],
  operation: defineOperation(`query ExportReturns($query: String, $status: [ReturnStatus!], $sortKey: ReturnSortKey, $reverse: Boolean, $first: Int, $after: String) {
    returns(query: $query, status: $status, sortKey: $sortKey, reverse: $reverse, first: $first, after: $after) {
      nodes { id number status type currency customerEmail customerFirstName customerLastName carrier trackingNumber externalReferenceId tags
        createdAt updatedAt closedAt
        order { name submittedCustomer { name email } }
        total { amount currency } totalRefund { amount currency } totalStoreCredit { amount currency }
        items { quantity reason } }
      ${PAGE_INFO} } }`),
  variables: (parameters) => ({
    query: searchOf(parameters),
    status: parameters.has('status') ? parameters.getAll('status').flatMap((s) => s.split(',')).map((s) => s.trim().toUpperCase()) : null,
    sortKey: parameters.get('sort_key')?.toUpperCase() || null,
    reverse: booleanOf(parameters.get('reverse')),
  }),
  nodes: connectionOf('returns'),
  columns: [
    { key: 'return_number', header: 'Return number', description: 'The return\'s number (#73 on the dashboard)', value: (r) => r.number },
    { key: 'order', header: 'Order', description: 'The order\'s name (#1001); empty for a return imported without one', value: (r) => r.order?.name ?? null },
    { key: 'status', header: 'Status', description: 'open, delivered, flagged, complete, rejected, deleted, ...', value: (r) => lower(r.status) },
    { key: 'type', header: 'Type', description: 'return, claim or warranty', value: (r) => lower(r.type) },
    {
      key: 'customer_name',
      header: 'Customer name',
      description: 'The shopper\'s name, as the order gave it (or as the return was imported)',
      value: (r) => r.order?.submittedCustomer?.name || joined([r.customerFirstName, r.customerLastName]),
    },
    { key: 'customer_email', header: 'Customer e-mail', description: 'The shopper\'s e-mail', value: (r) => r.order?.submittedCustomer?.email || r.customerEmail },
    { key: 'items', header: 'Items', description: 'Units returned (the items\' quantities added up)', value: (r) => r.items.reduce((sum, item) => sum + item.quantity, 0) },
    { key: 'reasons', header: 'Reasons', description: 'The items\' reasons, each once, comma separated', value: (r) => joined([...new Set(r.items.map((item) => item.reason))]) },
    { key: 'currency', header: 'Currency', description: 'ISO 4217 code of the amounts', value: (r) => r.currency },
    { key: 'total', header: 'Total', description: 'What the returned items are worth, a decimal number (12.50)', value: (r) => amount(r.total) },
    { key: 'refund', header: 'Refund', description: 'Refunded when processed, a decimal number', value: (r) => amount(r.totalRefund) },
    { key: 'store_credit', header: 'Store credit', description: 'Store credit given when processed, a decimal number', value: (r) => amount(r.totalStoreCredit) },
    { key: 'carrier', header: 'Carrier', description: 'The return shipment\'s carrier', value: (r) => r.carrier },
    { key: 'tracking_number', header: 'Tracking number', description: 'The return shipment\'s tracking number', value: (r) => r.trackingNumber },
    { key: 'rma', header: 'RMA', description: 'The merchant\'s own return reference', value: (r) => r.externalReferenceId },
    { key: 'tags', header: 'Tags', description: 'The return\'s tags, comma separated', value: (r) => joined(r.tags) },
    { key: 'created_at', header: 'Created at', description: 'When the return was made (ISO 8601, UTC)', value: (r) => r.createdAt },
    { key: 'updated_at', header: 'Updated at', description: 'When it last changed (ISO 8601, UTC)', value: (r) => r.updatedAt },
    { key: 'closed_at', header: 'Closed at', description: 'When it was completed or rejected (ISO 8601, UTC)', value: (r) => r.closedAt },
    { key: 'return_id', header: 'Return ID', description: 'The return\'s id in the API', value: (r) => r.id },
  ],
};

// ------------------------------------------------------------------ orders

interface OrderNode {
  id: string;
  name: string;
  externalId: string;
  placedAt: string;
  updatedAt: string;
  currency: string;
  submittedCustomer: { name: string | null; firstName: string | null; lastName: string | null; email: string | null; phoneNumber: string | null } | null;
  subtotalPrice: Money;
  totalDiscount: Money;
  shippingCost: Money;
  totalTax: Money;
  totalPrice: Money;
  lineItems: { quantity: number }[];
  tags: string[];
}

const ORDERS: ListExport<OrderNode> = {
  name: 'orders',
  scope: 'orders_read',
  order: 'newest first (by when it was created), as the orders list',
  searchable: true,
  parameters: [],
  operation: defineOperation(`query ExportOrders($query: String, $first: Int, $after: String) {
    orders(query: $query, first: $first, after: $after) {
      nodes { id name externalId placedAt updatedAt currency tags
        submittedCustomer { name firstName lastName email phoneNumber }
        subtotalPrice { amount currency } totalDiscount { amount currency } shippingCost { amount currency }
        totalTax { amount currency } totalPrice { amount currency }
        lineItems { quantity } }
      ${PAGE_INFO} } }`),
  variables: (parameters) => ({ query: searchOf(parameters) }),
  nodes: connectionOf('orders'),
  columns: [
    { key: 'order', header: 'Order', description: 'The order\'s name (#1001)', value: (o) => o.name },
    { key: 'placed_at', header: 'Placed at', description: 'When the shopper placed it (ISO 8601, UTC)', value: (o) => o.placedAt },
    {
      key: 'customer_name',
      header: 'Customer name',
      description: 'The shopper\'s name as the order gave it',
      value: (o) => o.submittedCustomer?.name || joined([o.submittedCustomer?.firstName ?? null, o.submittedCustomer?.lastName ?? null]),
    },
    { key: 'customer_email', header: 'Customer e-mail', description: 'The shopper\'s e-mail', value: (o) => o.submittedCustomer?.email ?? null },
    { key: 'customer_phone', header: 'Customer phone', description: 'The shopper\'s phone number', value: (o) => o.submittedCustomer?.phoneNumber ?? null },
    { key: 'items', header: 'Items', description: 'Units ordered (the lines\' quantities added up)', value: (o) => o.lineItems.reduce((sum, line) => sum + line.quantity, 0) },
    { key: 'currency', header: 'Currency', description: 'ISO 4217 code of the amounts', value: (o) => o.currency },
    { key: 'subtotal', header: 'Subtotal', description: 'The lines\' total, a decimal number (12.50)', value: (o) => amount(o.subtotalPrice) },
    { key: 'discount', header: 'Discount', description: 'Discounts, a decimal number', value: (o) => amount(o.totalDiscount) },
    { key: 'shipping', header: 'Shipping', description: 'Shipping charged, a decimal number', value: (o) => amount(o.shippingCost) },
    { key: 'tax', header: 'Tax', description: 'Tax, a decimal number', value: (o) => amount(o.totalTax) },
    { key: 'total', header: 'Total', description: 'The order\'s total, a decimal number', value: (o) => amount(o.totalPrice) },
    { key: 'tags', header: 'Tags', description: 'The order\'s tags, comma separated', value: (o) => joined(o.tags) },
    { key: 'updated_at', header: 'Updated at', description: 'When it last changed (ISO 8601, UTC)', value: (o) => o.updatedAt },
    { key: 'merchant_order_id', header: 'Merchant order ID', description: 'The order\'s id in the merchant\'s shop', value: (o) => o.externalId },
    { key: 'order_id', header: 'Order ID', description: 'The order\'s id in the API', value: (o) => o.id },
  ],
};

// ------------------------------------------------------------------ customers

interface CustomerNode {
  id: string;
  email: string | null;
  name: string | null;
  firstName: string | null;
  lastName: string | null;
  phoneNumber: string | null;
  createdAt: string;
  updatedAt: string;
}

const CUSTOMERS: ListExport<CustomerNode> = {
  name: 'customers',
  scope: 'customers_read',
  order: 'most recently changed first, as the customers list',
  searchable: true,
  parameters: [],
  operation: defineOperation(`query ExportCustomers($query: String, $first: Int, $after: String) {
    customers(query: $query, first: $first, after: $after) {
      nodes { id email name firstName lastName phoneNumber createdAt updatedAt }
      ${PAGE_INFO} } }`),
  variables: (parameters) => ({ query: searchOf(parameters) }),
  nodes: connectionOf('customers'),
  columns: [
    { key: 'email', header: 'E-mail', description: 'The customer\'s e-mail', value: (c) => c.email },
    { key: 'name', header: 'Name', description: 'The customer\'s display name', value: (c) => c.name },
    { key: 'first_name', header: 'First name', description: 'First name', value: (c) => c.firstName },
    { key: 'last_name', header: 'Last name', description: 'Last name', value: (c) => c.lastName },
    { key: 'phone', header: 'Phone', description: 'The main phone number (E.164)', value: (c) => c.phoneNumber },
    { key: 'created_at', header: 'Created at', description: 'When the customer was created (ISO 8601, UTC)', value: (c) => c.createdAt },
    { key: 'updated_at', header: 'Updated at', description: 'When it last changed (ISO 8601, UTC)', value: (c) => c.updatedAt },
    { key: 'customer_id', header: 'Customer ID', description: 'The customer\'s id in the API', value: (c) => c.id },
  ],
};

// ------------------------------------------------------------------ products

interface ProductNode {
  id: string;
  title: string;
  sku: string | null;
  upc: string | null;
  barcodes: string[];
  vendor: string | null;
  price: Money;
  cost: Money;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

const PRODUCTS: ListExport<ProductNode> = {
  name: 'products',
  scope: 'products_read',
  order: 'most recently created first, as the products list',
  searchable: true,
  parameters: [],
  operation: defineOperation(`query ExportProducts($query: String, $first: Int, $after: String) {
    products(query: $query, first: $first, after: $after) {
      nodes { id title sku upc barcodes vendor tags createdAt updatedAt price { amount currency } cost { amount currency } }
      ${PAGE_INFO} } }`),
  variables: (parameters) => ({ query: searchOf(parameters) }),
  nodes: connectionOf('products'),
  columns: [
    { key: 'title', header: 'Title', description: 'The product\'s title', value: (p) => p.title },
    { key: 'sku', header: 'SKU', description: 'Its SKU', value: (p) => p.sku },
    { key: 'upc', header: 'UPC', description: 'Its UPC', value: (p) => p.upc },
    { key: 'barcodes', header: 'Barcodes', description: 'Its other barcodes, comma separated', value: (p) => joined(p.barcodes) },
    { key: 'vendor', header: 'Vendor', description: 'Its vendor', value: (p) => p.vendor },
    { key: 'currency', header: 'Currency', description: 'ISO 4217 code of the price and cost', value: (p) => p.price?.currency ?? p.cost?.currency ?? null },
    { key: 'price', header: 'Price', description: 'The selling price, a decimal number (12.50)', value: (p) => amount(p.price) },
    { key: 'cost', header: 'Cost', description: 'What a unit costs the merchant, a decimal number', value: (p) => amount(p.cost) },
    { key: 'tags', header: 'Tags', description: 'The product\'s tags, comma separated', value: (p) => joined(p.tags) },
    { key: 'created_at', header: 'Created at', description: 'When the product was created (ISO 8601, UTC)', value: (p) => p.createdAt },
    { key: 'updated_at', header: 'Updated at', description: 'When it last changed (ISO 8601, UTC)', value: (p) => p.updatedAt },
    { key: 'product_id', header: 'Product ID', description: 'The product\'s id in the API', value: (p) => p.id },
  ],
};

// ------------------------------------------------------------------ inventory levels

interface InventoryLevelNode {
  id: string;
  quantity: number;
  available: number;
  committed: number;
  reserved: number;
  updatedAt: string;
  inventoryProduct: { id: string; title: string; sku: string | null } | null;
  location: { id: string; name: string } | null;
}

const INVENTORY_LEVELS: ListExport<InventoryLevelNode> = {
  name: 'inventory-levels',
  scope: 'inventory_read',
  order: 'most recently changed first, as the inventory levels list',
  searchable: true,
  parameters: [],
  operation: defineOperation(`query ExportInventoryLevels($query: String, $first: Int, $after: String) {
    inventoryLevels(query: $query, first: $first, after: $after) {
      nodes { id quantity available committed reserved updatedAt inventoryProduct { id title sku } location { id name } }
      ${PAGE_INFO} } }`),
  variables: (parameters) => ({ query: searchOf(parameters) }),
  nodes: connectionOf('inventoryLevels'),
  columns: [
    { key: 'product', header: 'Product', description: 'The product\'s title', value: (l) => l.inventoryProduct?.title ?? null },
    { key: 'sku', header: 'SKU', description: 'The product\'s SKU', value: (l) => l.inventoryProduct?.sku ?? null },
    { key: 'location', header: 'Location', description: 'The location\'s name', value: (l) => l.location?.name ?? null },
    { key: 'on_hand', header: 'On hand', description: 'Units at the location', value: (l) => l.quantity },
    { key: 'available', header: 'Available', description: 'Units that can be sold (on hand less committed and reserved)', value: (l) => l.available },
    { key: 'committed', header: 'Committed', description: 'Units promised to orders not yet shipped', value: (l) => l.committed },
    { key: 'reserved', header: 'Reserved', description: 'Units held back', value: (l) => l.reserved },
    { key: 'updated_at', header: 'Updated at', description: 'When the level last changed (ISO 8601, UTC)', value: (l) => l.updatedAt },
    { key: 'product_id', header: 'Product ID', description: 'The product\'s id in the API', value: (l) => l.inventoryProduct?.id ?? null },
    { key: 'location_id', header: 'Location ID', description: 'The location\'s id in the API', value: (l) => l.location?.id ?? null },
    { key: 'inventory_level_id', header: 'Inventory level ID', description: 'The level\'s id in the API', value: (l) => l.id },
  ],
};

// ------------------------------------------------------------------ audit entries

interface AuditEntryNode {
  id: string;
  occurredAt: string;
  actor: { kind: string; id: string | null; name: string | null };
  door: string;
  operation: string | null;
  requestId: string | null;
  object: { kind: string; id: string };
  parent: { kind: string; id: string } | null;
  action: string;
  changes: { field: string; before: unknown; after: unknown }[];
}

const AUDIT_ENTRIES: ListExport<AuditEntryNode> = {
  name: 'audit-entries',
  scope: 'audit_read',
  order: 'newest first, as the audit trail',
  // The audit trail has no search syntax: it is narrowed by record, actor, operation and time.
  searchable: false,
  parameters: [
    { name: 'object_kind', description: 'With object_id: only the history of this record (RETURN, ORDER, CUSTOMER, PRODUCT, ...) and of its parts' },
    { name: 'object_id', description: 'The record\'s id, with object_kind' },
    { name: 'actor_kind', description: 'Only the changes of this kind of actor (API_CLIENT, MERCHANT_USER, SHOPPER, JOB, SYSTEM)' },
    { name: 'actor_id', description: 'With actor_kind: only this actor\'s changes' },
    { name: 'operation', description: 'Only the changes of this mutation (returnProcess)' },
    { name: 'occurred_at_min', description: 'Only changes at or after this time (ISO 8601)' },
    { name: 'occurred_at_max', description: 'Only changes before this time (ISO 8601)' },
  ],
  operation: defineOperation(`query ExportAuditEntries($object: AuditObjectFilter, $actor: AuditActorFilter, $operation: String,
    $occurredAtMin: DateTime, $occurredAtMax: DateTime, $first: Int, $after: String) {
    auditEntries(object: $object, actor: $actor, operation: $operation, occurredAtMin: $occurredAtMin, occurredAtMax: $occurredAtMax, first: $first, after: $after) {
      nodes { id occurredAt actor { kind id name } door operation requestId object { kind id } parent { kind id } action changes { field before after } }
      ${PAGE_INFO} } }`),
  variables: (parameters) => {
    const text = (name: string) => parameters.get(name) || null;
    return {
      // A half-named filter is handed on as it is, for the schema to refuse in its own words.
      object: text('object_kind') || text('object_id') ? { kind: text('object_kind')?.toUpperCase(), id: text('object_id') } : null,
      actor: text('actor_kind') || text('actor_id') ? { kind: text('actor_kind')?.toUpperCase(), id: text('actor_id') } : null,
      operation: text('operation'),
      occurredAtMin: text('occurred_at_min'),
      occurredAtMax: text('occurred_at_max'),
    };
  },
  nodes: connectionOf('auditEntries'),
  columns: [
    { key: 'occurred_at', header: 'Occurred at', description: 'When the change was made (ISO 8601, UTC)', value: (e) => e.occurredAt },
    { key: 'action', header: 'Action', description: 'insert, update or delete', value: (e) => lower(e.action) },
    { key: 'object_kind', header: 'Record kind', description: 'What was changed (return, order, customer, ...)', value: (e) => lower(e.object.kind) },
    { key: 'object_id', header: 'Record ID', description: 'Its id', value: (e) => e.object.id },
    { key: 'parent_kind', header: 'Part of kind', description: 'For a part (an order\'s line item): its record\'s kind', value: (e) => lower(e.parent?.kind ?? null) },
    { key: 'parent_id', header: 'Part of ID', description: 'And that record\'s id', value: (e) => e.parent?.id ?? null },
    { key: 'actor_kind', header: 'Actor kind', description: 'Who made it: api_client, merchant_user, shopper, job or system (a change made in the database directly)', value: (e) => lower(e.actor.kind) },
    { key: 'actor_id', header: 'Actor ID', description: 'Their id', value: (e) => e.actor.id },
    { key: 'actor_name', header: 'Actor', description: 'Their name', value: (e) => e.actor.name },
    { key: 'door', header: 'Door', description: 'The way in: v3, rest, compat, web, ...', value: (e) => e.door },
    { key: 'operation', header: 'Operation', description: 'The mutation that made it', value: (e) => e.operation },
    {
      key: 'changes',
      header: 'Changes',
      description: 'The fields changed, as JSON: [{"field", "before", "after"}, ...]',
      value: (e) => JSON.stringify(e.changes),
    },
    { key: 'request_id', header: 'Request ID', description: 'The request that made it', value: (e) => e.requestId },
    { key: 'entry_id', header: 'Entry ID', description: 'The entry\'s id in the API', value: (e) => e.id },
  ],
};

export const LIST_EXPORTS = {
  returns: RETURNS,
  orders: ORDERS,
  customers: CUSTOMERS,
  products: PRODUCTS,
  'inventory-levels': INVENTORY_LEVELS,
  'audit-entries': AUDIT_ENTRIES,
} as const;

export type ListName = keyof typeof LIST_EXPORTS;

export function listExportNamed(name: string): ListExport<unknown> | undefined {
  return Object.hasOwn(LIST_EXPORTS, name) ? (LIST_EXPORTS[name as ListName] as ListExport<unknown>) : undefined;
}

/** The query parameters an export takes; anything else is a mistake worth naming. */
export function exportParameterNames(list: ListExport<unknown>): string[] {
  return [...(list.searchable ? ['query'] : []), ...list.parameters.map((p) => p.name)];
}

function cellText(value: CellValue): string {
  return value === null ? '' : String(value);
}

export function exportLayout<N>(list: ListExport<N>, format: ExportFormat): AnswerLayout<N> {
  if (format === 'csv') {
    const csv = csvLayout(list.columns.map((column) => column.header));
    return { ...csv, item: (node) => csv.item(list.columns.map((column) => cellText(column.value(node)))) };
  }
  return {
    contentType: EXPORT_FORMATS.jsonl.contentType,
    open: '',
    separator: '',
    close: '',
    item: (node) => `${JSON.stringify(Object.fromEntries(list.columns.map((column) => [column.key, column.value(node)])))}\n`,
  };
}

type Failure = Extract<OperationOutcome<unknown>, { ok: false }>;

/**
 * The export as a streamed 200 with a file name; a refusal found on the first page (a malformed
 * search, a missing scope, a value the schema does not take) is answered by `refused` before
 * anything is sent.
 */
export function listExportAnswer<N>(
  ctx: GraphQLContext,
  list: ListExport<N>,
  format: ExportFormat,
  variables: Record<string, unknown>,
  answer: { refused: (failure: Failure) => DoorResponse; headers?: Record<string, string> },
): Promise<DoorResponse> {
  const exportContext: GraphQLContext = { ...ctx, maxPageSize: Math.max(ctx.maxPageSize, EXPORT_PAGE_SIZE) };
  // A later page is never cut off by the search time limit: its answer's head is out by then, and
  // the file would end short; the first page is where a search that matches too much is refused.
  const pages = connectionPages<Record<string, unknown>, N>(
    list.operation,
    variables,
    exportContext,
    (data) => {
      const { nodes, pageInfo } = list.nodes(data);
      return { items: nodes, pageInfo };
    },
    EXPORT_PAGE_SIZE,
    { laterPagesUnlimited: true },
  );
  const filename = `${list.name}-${new Date().toISOString().slice(0, 10)}.${format}`;
  return streamedAnswer(pages, {
    layout: exportLayout(list, format),
    headers: { 'content-disposition': `attachment; filename="${filename}"`, ...answer.headers },
    refused: answer.refused,
  });
}

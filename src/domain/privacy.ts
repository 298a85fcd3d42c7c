// A shopper's personal data: gathered for their request to see it (GDPR articles 15 and 20)
// and erased on their request to be forgotten (article 17), or for every shopper of a store
// when the merchant leaves.
//
// Who "the person" is: the store's customer named by id, or by e-mail (the customer with that
// e-mail, if any, and the e-mail itself), together with the customers the store's phone lookup
// names for that customer's phone numbers when they have no e-mail of their own (a profile made
// from an SMS consent). Their records: those customers; orders linked to them, carrying one of
// their e-mails, or, with no e-mail and no customer, one of their phone numbers; the returns of
// those orders and imported returns carrying their e-mail; their custom events; storefront events
// linked to them or carrying their e-mail; and the outbox events about any of these records, with
// their webhook deliveries.
//
// Where personal data is stored, and what erasure does to it, is PERSONAL_DATA below: every text
// and JSON column of every table, each either erased (how) or kept (why). Erasure replaces a
// value by REDACTED (or clears it where it is a lookup key or a value no marker fits), keeps
// amounts, dates, SKUs, quantities, statuses and ids, and rewrites the search documents through
// the tables' own triggers. It runs in the database, a statement per table (an erasure of a
// thousand orders is the same dozen statements as one of a single order), with two functions of
// the migration `privacy`: privacy_matches (a text holds one of the person's values) and
// privacy_redact_json (a JSON document with personal members and the person's values replaced).
import { createHash } from 'node:crypto';
import { Invalid, NotFound, type FieldIssue } from './errors.ts';
import { emailKey, lockKey } from './customers.ts';
import { recordEvent } from './events.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

/** What an erased value reads. */
export const REDACTED = '[redacted]';

/** The export document's `format` and `version`: a change of its shape is a new version. */
export const EXPORT_FORMAT = 'customer-data-export';
export const EXPORT_VERSION = 1;

// ------------------------------------------------------------------ where personal data lives

/** How erasure treats a column that holds personal data. */
export type Erasure =
  /** Replaced by REDACTED (an empty value stays empty). */
  | { erase: 'redact'; holds: string }
  /** Cleared: a lookup key that must not find the person again, or a value REDACTED cannot stand for. */
  | { erase: 'clear'; holds: string }
  /** A list emptied. */
  | { erase: 'empty'; holds: string }
  /** JSON: every member named in PERSONAL_KEYS and every string holding one of the person's values replaced. */
  | { erase: 'members'; holds: string }
  /** JSON whose every value is personal: strings replaced, numbers and booleans cleared, its shape kept. */
  | { erase: 'whole'; holds: string }
  /** Text that may quote the person: replaced (or cleared) when it holds one of their values; always, when a whole store is erased. */
  | { erase: 'scrub'; with: 'redact' | 'clear'; holds: string }
  /** The row is deleted: nothing of it is worth keeping once its value is gone. */
  | { erase: 'delete'; holds: string };

/** A column kept as it is, and why it holds no shopper's personal data (or none worth erasing). */
export interface Kept {
  keep: string;
}

export type ColumnHandling = Erasure | Kept;

const ID: Kept = { keep: 'an identifier' };

/** A table whose text and JSON columns hold no shopper's personal data. */
function kept(why: string, columns: string[]): Record<string, Kept> {
  return Object.fromEntries(columns.map((column) => [column, { keep: why }]));
}

/**
 * JSON members whose values are personal wherever they appear (in an outbox event's data, a
 * storefront event's payload, an audit entry's changes): a string under one is replaced, an
 * object or list under one redacted whole (its ids kept).
 */
export const PERSONAL_KEYS = [
  'email',
  'emailAddress',
  'customerEmail',
  'phone',
  'phoneNumber',
  'phoneNumbers',
  'customerPhone',
  'firstName',
  'lastName',
  'customerName',
  'customerFirstName',
  'customerLastName',
  'given',
  'surname',
  'fullName',
  'address',
  'address1',
  'address2',
  'line1',
  'line2',
  'street1',
  'street2',
  'city',
  'province',
  'postalCode',
  'zip',
  'latitude',
  'longitude',
  'location',
  'shippingAddress',
  'billingAddress',
  'mailingAddress',
  'originAddress',
  'customFields',
  'customerComment',
  'anonymousId',
  'urlWithParams',
] as const;

/**
 * Every text and JSON column of every table (test/domain/privacy.test.ts compares this with the
 * database's catalog, so a column added later must be placed here), per table.
 */
export const PERSONAL_DATA: Record<string, Record<string, ColumnHandling>> = {
  Customer: {
    id: ID,
    storeId: ID,
    email: { erase: 'clear', holds: 'the e-mail, also the upsert key: cleared so that later data for this e-mail starts a new customer' },
    firstName: { erase: 'redact', holds: 'the first name' },
    lastName: { erase: 'redact', holds: 'the last name' },
    name: { erase: 'redact', holds: 'the display name' },
    phoneNumbers: { erase: 'empty', holds: 'every phone number' },
    location: { erase: 'clear', holds: 'where the person lives (street, city, coordinates, time zone)' },
    searchText: { keep: 'the search document, rewritten from the row by its trigger (migration search_documents)' },
  },
  CustomerPhoneNumber: { storeId: ID, customerId: ID, phoneNumber: { erase: 'delete', holds: 'a phone number, as the lookup key naming the customer' } },
  CustomerSubscription: { storeId: ID, customerId: ID, address: { erase: 'redact', holds: 'the e-mail or phone number the consent was given for' } },
  CustomEvent: {
    id: ID,
    storeId: ID,
    customerId: ID,
    eventName: { keep: "the merchant's name for the kind of event" },
    data: { erase: 'whole', holds: "the merchant's properties of the person (segments)" },
    valueCurrency: { keep: 'a currency code' },
    uniqueId: { erase: 'scrub', with: 'clear', holds: "the merchant's deduplication key, which may be made of the person's e-mail" },
  },
  CustomFieldDeclaration: kept("the merchant's field names and types", ['id', 'storeId', 'name']),
  CustomFieldOption: { declarationId: ID, value: { erase: 'delete', holds: 'a value a customer gave a field (the segment filter choices), once no other customer holds it' } },
  CustomFieldValue: { customerId: ID, declarationId: ID, stringValue: { erase: 'delete', holds: "the person's value of a field (with its number, boolean and date columns)" } },
  Order: {
    id: ID,
    storeId: ID,
    customerId: ID,
    externalId: { keep: "the merchant's order id" },
    name: { keep: 'the order number' },
    currency: { keep: 'a currency code' },
    tags: { keep: "the merchant's labels" },
    customerExternalId: { keep: "the merchant's own id of its customer, which its accounts refer to" },
    customerEmail: { erase: 'redact', holds: "the shopper's e-mail as the order gave it" },
    customerPhone: { erase: 'redact', holds: "the shopper's phone number" },
    customerName: { erase: 'redact', holds: "the shopper's name" },
    customerFirstName: { erase: 'redact', holds: "the shopper's first name" },
    customerLastName: { erase: 'redact', holds: "the shopper's last name" },
    shippingMethod: { keep: "the merchant's shipping method" },
    shippingAddress: { erase: 'whole', holds: 'where the order was shipped' },
    billingAddress: { erase: 'whole', holds: 'the billing address' },
    searchText: { keep: 'the search document, rewritten from the row by its trigger (migration search_documents)' },
  },
  OrderLineItem: kept('what was sold (products, SKUs, prices)', [
    'id',
    'orderId',
    'externalId',
    'externalProductId',
    'externalVariantId',
    'title',
    'sku',
    'imageUrl',
    'productId',
    'fulfillmentGroupId',
    'committedLevelId',
  ]),
  Fulfillment: kept("the carrier's shipment of the merchant's goods", ['id', 'storeId', 'orderId', 'externalId', 'trackingCompany', 'trackingNumber', 'status', 'estimatedDeliveryDate']),
  FulfillmentLineItem: kept('which lines a shipment carried', ['id', 'fulfillmentId', 'orderLineItemId']),
  FulfillmentTrackingEvent: {
    id: ID,
    fulfillmentId: ID,
    status: { keep: 'a shipment status' },
    message: { erase: 'scrub', with: 'redact', holds: "the carrier's words, which may name the person (left with ...)" },
    city: { erase: 'redact', holds: 'where the parcel was scanned, near the end the place the person lives' },
    state: { erase: 'redact', holds: 'where the parcel was scanned' },
    country: { erase: 'redact', holds: 'where the parcel was scanned' },
    postalCode: { erase: 'redact', holds: 'where the parcel was scanned' },
  },
  FulfillmentGroup: kept("the merchant's shipping origin", [
    'id',
    'orderId',
    'locationId',
    'originName',
    'originCompany',
    'originStreet1',
    'originStreet2',
    'originCity',
    'originStateCode',
    'originPostalCode',
    'originCountryCode',
    'originPhone',
  ]),
  CoverageProduct: kept("the merchant's coverage offer", ['id', 'storeId', 'title', 'description', 'eligibleProductIds']),
  OrderCoverage: kept('coverage sold, an amount', ['id', 'storeId', 'orderId', 'orderLineItemId', 'coverageProductId', 'currency']),
  StorefrontEvent: {
    id: ID,
    storeId: ID,
    customerId: ID,
    eventId: { keep: "the pixel's id of the event" },
    eventName: { keep: 'the kind of event' },
    source: { keep: 'the pixel that sent it' },
    customerEmail: { erase: 'redact', holds: "the shopper's e-mail" },
    anonymousId: { erase: 'clear', holds: "the browser's id, which links later events to the customer" },
    payload: { erase: 'members', holds: "the pixel's event as sent: contact details, addresses, the pages seen (redacted whole when a store is erased)" },
  },
  Invoice: kept('what the service charges the store', ['id', 'storeId', 'currency']),
  InvoiceItem: kept('what the service charges the store', ['id', 'invoiceId', 'description', 'subjectId']),
  BillingSetting: kept("the store's billing terms", ['storeId']),
  Return: {
    id: ID,
    storeId: ID,
    orderId: ID,
    destinationLocationId: ID,
    externalReferenceId: { keep: "the merchant's RMA id" },
    customerEmail: { erase: 'redact', holds: "the shopper's e-mail (an imported return)" },
    customerFirstName: { erase: 'redact', holds: "the shopper's first name" },
    customerLastName: { erase: 'redact', holds: "the shopper's last name" },
    destinationAddress: { keep: "where the return is sent: the merchant's address" },
    currency: { keep: 'a currency code' },
    carrier: { keep: 'a carrier' },
    trackingNumber: { keep: "the carrier's tracking number" },
    labelStatus: { keep: 'a label status' },
    labelUrl: { erase: 'redact', holds: "the postage label, printed with the shopper's name and address" },
    trackingUrl: { keep: "the carrier's tracking page" },
    originAddress: { erase: 'whole', holds: 'where the shopper ships the return from' },
    tags: { keep: "the merchant's labels" },
    searchText: { keep: 'the search document, rewritten from the row by its trigger (migration search_documents)' },
  },
  ReturnItem: {
    id: ID,
    returnId: ID,
    orderLineItemId: ID,
    productId: ID,
    title: { keep: 'the product' },
    sku: { keep: 'the SKU' },
    barcode: { keep: "the product's barcode" },
    variantTitle: { keep: 'the variant' },
    condition: { keep: 'the condition of the goods' },
    reasonCode: { keep: "the merchant's reason code" },
    reason: { erase: 'scrub', with: 'redact', holds: 'why it came back, which a shopper may have typed' },
    customerComment: { erase: 'redact', holds: "the shopper's own words" },
  },
  ReturnNote: { id: ID, returnId: ID, content: { erase: 'redact', holds: 'notes about the shopper\'s return' } },
  ReturnTag: kept("the merchant's tags", ['storeId', 'name', 'pillTheme', 'source']),
  ReturnStatusChange: kept("a return's history of statuses", ['id', 'returnId', 'operation']),
  ReturnBulkAction: {
    id: ID,
    storeId: ID,
    key: { keep: "the dashboard form's key" },
    action: { keep: 'what was done to many returns' },
    argument: { keep: "a tag's name, or a note's words only while the action runs (each return's note, which erasure treats, keeps them)" },
    returnIds: ID,
    results: { keep: 'the returns acted on, by id and number, and why any was refused' },
    state: { keep: 'whether the action is running' },
    startedBy: { keep: 'who started it (an API client or a merchant user) and through which door, as the audit trail names them' },
    leasedBy: { keep: 'the service instance acting on it' },
  },
  IdempotencyKey: kept("a client's key and the record it made", ['storeId', 'key', 'operation', 'requestHash', 'resourceId']),
  Event: {
    id: ID,
    storeId: ID,
    subjectId: ID,
    topic: { keep: 'the kind of event' },
    data: {
      erase: 'members',
      holds: "the body webhook deliveries send (kept for replays); a customer event's `name` and a custom event's `data` and `uniqueId` are personal too",
    },
  },
  WebhookDelivery: {
    id: ID,
    eventId: ID,
    subscriptionId: ID,
    subjectId: ID,
    lockedBy: { keep: 'the dispatcher instance delivering it' },
    lastError: { erase: 'scrub', with: 'redact', holds: "the subscriber's last answer, which may quote the body it was sent" },
  },
  DeliveryAttempt: { id: ID, deliveryId: ID, error: { erase: 'scrub', with: 'redact', holds: "the subscriber's answer, which may quote the body it was sent" } },
  WebhookQueue: kept('a delivery queue', ['subscriptionId', 'subjectId']),
  WebhookSubscription: kept("the merchant's endpoint", ['id', 'storeId', 'url', 'secret', 'topics', 'externalId']),
  Store: kept("the merchant's own details", [
    'id',
    'name',
    'currency',
    'originName',
    'originCompany',
    'originStreet1',
    'originStreet2',
    'originCity',
    'originStateCode',
    'originPostalCode',
    'originCountryCode',
    'originPhone',
    'defaultLocationId',
  ]),
  StoreLink: kept('a link between two stores', ['merchantId', 'fulfillmentServiceId']),
  ApiClient: kept("the merchant's integrations", ['id', 'storeId', 'name', 'secretHash', 'scopes']),
  MerchantUser: kept("the merchant's staff, not its shoppers", ['id', 'storeId', 'email', 'passwordHash']),
  MerchantSession: kept("a staff member's sign-in", ['tokenHash', 'userId', 'csrfToken']),
  ThrottleWindow: kept('a sign-in or portal counter (a staff e-mail or a client address), pruned within minutes', ['key']),
  BulkOperationLock: kept('a lock', ['storeId', 'operation', 'runId']),
  ProductFamily: kept("the merchant's catalogue", ['id', 'storeId', 'externalId', 'title', 'description', 'vendor', 'tags']),
  ProductFamilyOption: kept("the merchant's catalogue", ['id', 'familyId', 'name', 'values']),
  Product: kept("the merchant's catalogue", [
    'id',
    'storeId',
    'familyId',
    'externalId',
    'title',
    'description',
    'sku',
    'upc',
    'barcodes',
    'vendor',
    'tags',
    'hsCode',
    'originCountry',
    'taxCode',
    'currency',
    'searchText',
  ]),
  ProductOptionValue: kept("the merchant's catalogue", ['productId', 'optionId', 'value']),
  ProductImage: kept("the merchant's catalogue", ['id', 'productId', 'url', 'altText']),
  ProductFamilyImage: kept("the merchant's catalogue", ['id', 'familyId', 'url', 'altText']),
  Attribute: kept("the merchant's catalogue", ['id', 'storeId', 'name', 'displayName', 'description']),
  AttributeValue: kept("the merchant's catalogue", ['id', 'attributeId', 'productId', 'familyId', 'value']),
  Location: kept("the merchant's or a fulfillment service's premises", [
    'id',
    'storeId',
    'name',
    'company',
    'street1',
    'street2',
    'city',
    'stateCode',
    'postalCode',
    'countryCode',
    'phone',
  ]),
  InventoryLevel: kept('stock', ['id', 'storeId', 'productId', 'locationId']),
  InventoryAdjustment: kept('stock changes and what caused them (ids)', ['id', 'levelId', 'reason', 'referenceId']),
  InboundShipment: kept("the merchant's supply", [
    'id',
    'storeId',
    'locationId',
    'carrier',
    'carrierShipmentId',
    'trackingNumber',
    'trackingUrl',
    'freightType',
    'paymentTerms',
    'currency',
  ]),
  InboundShipmentItem: kept("the merchant's supply", ['id', 'shipmentId', 'productId', 'purchaseOrderItemId']),
  InboundShipmentPurchaseOrder: kept("the merchant's supply", ['shipmentId', 'purchaseOrderId']),
  PurchaseOrder: kept("the merchant's supply", ['id', 'storeId', 'name', 'vendor', 'currency']),
  PurchaseOrderItem: kept("the merchant's supply", ['id', 'purchaseOrderId', 'productId']),
  AuditEntry: {
    storeId: ID,
    actorId: ID,
    objectId: ID,
    parentId: ID,
    actorName: { keep: "the merchant's API client or staff member who acted" },
    door: { keep: 'the door' },
    operation: { keep: 'the operation' },
    requestId: { keep: "the request's id" },
    objectKind: { keep: 'the kind of record changed' },
    parentKind: { keep: 'the kind of record changed' },
    changes: { erase: 'members', holds: "the values before and after a change of one of the person's records (their personal columns redacted whole)" },
  },
  IdempotentRequest: {
    clientId: ID,
    storeId: ID,
    key: { keep: "the client's key" },
    fingerprint: { keep: "the request's hash" },
    headers: { keep: "the stored answer's content type and location (its body, bytes, is deleted when it quotes the person)" },
  },
  PersistedQuery: {
    hash: ID,
    query: { keep: 'a GraphQL document registered by its hash (deleted when it quotes the person: a client sends it again when asked)' },
  },
  StoreChangeCounter: { storeId: ID },
  ReadPosition: { actor: { keep: 'an API client, staff member or shopper session id, pruned within seconds' } },
};

/**
 * Columns of the audited tables that hold personal values but no text (a custom field's number,
 * boolean and date): an audit entry's before and after of them are redacted too.
 */
const PERSONAL_NON_TEXT: Record<string, string[]> = { CustomFieldValue: ['numberValue', 'booleanValue', 'dateValue'] };

/** The personal columns of each table, as the members of an audit entry's `changes` they become. */
export function personalColumnsByTable(): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(PERSONAL_DATA).map(([table, columns]) => [
      table,
      [...Object.entries(columns).flatMap(([column, handling]) => ('erase' in handling ? [column] : [])), ...(PERSONAL_NON_TEXT[table] ?? [])],
    ]),
  );
}

// ------------------------------------------------------------------ the person

/** Who a request names: a customer by id, or a person by e-mail. */
export type PersonKey = { customerId: string } | { email: string };

export interface Person {
  /** The customers that are the person (the named one first). */
  customerIds: string[];
  /** Their e-mails, lower case. */
  emails: string[];
  /** Their phone numbers (E.164). */
  phoneNumbers: string[];
}

/** Exactly one of the two, checked: the e-mail's lookup key, or the id as given. */
export function personKeyOf(input: { customerId?: string | null; email?: string | null }): PersonKey {
  const issues: FieldIssue[] = [];
  const customerId = input.customerId ?? undefined;
  const email = input.email ?? undefined;
  if ((customerId === undefined) === (email === undefined)) {
    throw Invalid.of([{ path: customerId === undefined ? 'customerId' : 'email', message: 'name the person by exactly one of customerId and email' }]);
  }
  if (customerId !== undefined) return { customerId };
  const key = emailKey(email!, 'email', issues);
  if (key === undefined) throw Invalid.of(issues);
  return { email: key };
}

/** At most this many phone numbers of a person are looked for on orders without an e-mail. */
const MAX_PHONE_NUMBERS = 10;

interface CustomerIdentity {
  id: string;
  email: string | null;
  phoneNumbers: string[];
}

async function customerById(db: Db | Tx, storeId: string, id: string): Promise<CustomerIdentity> {
  const customer = await db.customer.findFirst({ where: { id, storeId }, select: { id: true, email: true, phoneNumbers: true } });
  if (!customer) throw new NotFound(`the store has no customer ${id}`, { path: 'customerId' });
  return customer;
}

/** The e-mail-less customers the store's phone lookup names for these numbers, other than `except`. */
async function phoneOnlyCustomers(db: Db | Tx, storeId: string, phoneNumbers: string[], except: string | undefined): Promise<CustomerIdentity[]> {
  if (phoneNumbers.length === 0) return [];
  const rows = await db.customerPhoneNumber.findMany({
    where: { storeId, phoneNumber: { in: phoneNumbers }, customer: { email: null, id: except === undefined ? undefined : { not: except } } },
    select: { customer: { select: { id: true, email: true, phoneNumbers: true } } },
    orderBy: { customerId: 'asc' },
  });
  return [...new Map(rows.map((row) => [row.customer.id, row.customer])).values()];
}

function personOf(key: PersonKey, named: CustomerIdentity | null, others: CustomerIdentity[]): Person {
  const customers = [...(named ? [named] : []), ...others];
  const emails = new Set<string>('email' in key ? [key.email] : []);
  for (const customer of customers) if (customer.email) emails.add(customer.email);
  return {
    customerIds: customers.map((c) => c.id),
    emails: [...emails],
    phoneNumbers: [...new Set(customers.flatMap((c) => c.phoneNumbers))],
  };
}

/** The person a key names (see the header). A customer id the store does not have is NotFound; an e-mail nobody has is a person with no records. */
export async function findPerson(db: Db | Tx, storeId: string, key: PersonKey): Promise<Person> {
  const named =
    'customerId' in key
      ? await customerById(db, storeId, key.customerId)
      : await db.customer.findUnique({ where: { storeId_email: { storeId, email: key.email } }, select: { id: true, email: true, phoneNumbers: true } });
  return personOf(key, named, await phoneOnlyCustomers(db, storeId, named?.phoneNumbers ?? [], named?.id));
}

/**
 * The person, with every lookup key naming them held and their customer rows locked until the
 * transaction ends, in the customers' lock order (e-mails, phone numbers, customers: see
 * customers.ts): an upsert or event naming them waits, then finds nobody and starts afresh.
 */
async function lockPerson(tx: Tx, storeId: string, key: PersonKey): Promise<Person> {
  const byId = 'customerId' in key ? await customerById(tx, storeId, key.customerId) : null;
  const emails = [...new Set(['email' in key ? key.email : byId?.email].filter((e): e is string => Boolean(e)))].sort();
  for (const email of emails) await lockKey(tx, storeId, email);
  const named = byId ?? (await tx.customer.findUnique({ where: { storeId_email: { storeId, email: emails[0] } }, select: { id: true, email: true, phoneNumbers: true } }));
  for (const phoneNumber of [...(named?.phoneNumbers ?? [])].sort()) await lockKey(tx, storeId, phoneNumber);
  const person = personOf(key, named, await phoneOnlyCustomers(tx, storeId, named?.phoneNumbers ?? [], named?.id));
  if (person.customerIds.length > 0) {
    await tx.$queryRawUnsafe(`SELECT id FROM "Customer" WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [...person.customerIds].sort());
  }
  return person;
}

// ------------------------------------------------------------------ SQL building

/** Positional parameters of one statement, each cast to its type where it is used. */
class Statement {
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
function personSets(q: Statement, storeId: string, person: Person): string {
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
function columnsOf(db: Db | Tx): Promise<Map<string, ColumnType[]>> {
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
interface Child {
  name: string;
  table: string;
  parentColumn: string;
  orderBy: readonly string[];
  children?: readonly Child[];
}

/** The search documents are the rows' own text again, folded: not exported. */
const NOT_EXPORTED = new Set(['searchText']);

function rowJson(tables: Map<string, ColumnType[]>, table: string, alias: string, children: readonly Child[] = [], depth = 0): string {
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

// ------------------------------------------------------------------ erasure

/** What an erasure changed, per kind of record: rows rewritten, or deleted (lookup keys, custom field values and options). */
export const ERASURE_KINDS = {
  customers: 'Customers erased (names and phone numbers replaced, e-mail and location cleared)',
  customerPhoneNumbers: 'Phone number lookup keys deleted',
  customFieldValues: 'Custom field values deleted',
  customFieldOptions: "Custom field options (the values segments offer) deleted because only the person held them",
  customerSubscriptions: 'Consent records whose address was replaced',
  orders: "Orders whose shopper's e-mail, phone, names and addresses were replaced",
  fulfillmentTrackingEvents: "Shipment tracking events whose place or words were replaced",
  returns: "Returns whose shopper's e-mail, names, origin address and label were replaced",
  returnItems: "Returned items whose shopper's comment or reason was replaced",
  returnNotes: 'Return notes replaced',
  customEvents: 'Custom events whose data was replaced',
  storefrontEvents: "Storefront events whose e-mail, browser id and payload were replaced",
  webhookEvents: 'Outbox events whose body (what webhook deliveries send, and replay) was rewritten',
  webhookDeliveries: "Webhook deliveries whose recorded answer quoted the person",
  deliveryAttempts: "Delivery attempts whose recorded answer quoted the person",
  auditEntries: "Audit trail entries whose values before and after were redacted",
  storedAnswers: 'Answers kept for Idempotency-Key replays that quoted the person, deleted (a retry with the key then runs again)',
  persistedQueries: 'Persisted GraphQL documents that quoted the person, deleted (a client sends one again when asked)',
} as const;

export type ErasureKind = keyof typeof ERASURE_KINDS;
export type ErasureCounts = Record<ErasureKind, number>;

function noCounts(): ErasureCounts {
  return Object.fromEntries(Object.keys(ERASURE_KINDS).map((kind) => [kind, 0])) as ErasureCounts;
}

function addCounts(total: ErasureCounts, more: Partial<ErasureCounts>): void {
  for (const [kind, count] of Object.entries(more) as [ErasureKind, number][]) total[kind] += count;
}

/** The record sets erasure works through; each table's rows are found from one of them. */
type RecordSet = 'customers' | 'orders' | 'returns' | 'customEvents' | 'storefrontEvents' | 'events' | 'auditEntries';

/** What a text is matched against (privacy_matches): what the person is called and reached by. */
interface Needles {
  /** Regular expressions of the values (folded), each found as a whole word or more: each holds some of them. */
  words: string[];
  /** Phone numbers' last nine digits. */
  digits: string[];
}

const NO_NEEDLES: Needles = { words: [], digits: [] };

/**
 * The members of an order's or return's address (OrderAddressInput, the return's origin) naming
 * who it went to and where they live: looked for in stored answers (needlesOf). Not the city or
 * country, which many other shoppers share.
 */
const ADDRESS_LINES = ['address1', 'address2', 'line1', 'line2', 'street1', 'street2', 'postalCode', 'zip', 'name', 'firstName', 'lastName', 'phone'];

/** Values per regular expression: PostgreSQL refuses one too complex, and a short one compiles fast and stays in its cache. */
const VALUES_PER_PATTERN = 100;

/**
 * How the erasure of one table finds its rows (SQL over the alias `x`, given `ids`: the ids of
 * its record set, a text[] expression) and what it counts them as.
 */
interface ErasedTable {
  table: string;
  set: RecordSet;
  count: ErasureKind;
  rows(ids: string): string;
  /** Columns set with every rewrite: when the row changed, when it was erased. */
  stamps?: Record<string, string>;
  /** The JSON members that are personal in a row, when they depend on the row (SQL over `x`; `keys()` is PERSONAL_KEYS as a parameter). */
  personalKeys?: (q: Statement, keys: () => string) => string;
  /** The whole-store erasure redacts this JSON column whole (a pixel payload is the shopper's browsing). */
  wholeWhenStore?: string;
}

const NOW = `(now() AT TIME ZONE 'UTC')`;

const ERASED_TABLES: ErasedTable[] = [
  { table: 'Customer', set: 'customers', count: 'customers', rows: (ids) => `x.id = ANY(${ids})`, stamps: { updatedAt: NOW, redactedAt: `coalesce(x."redactedAt", ${NOW})` } },
  { table: 'CustomerPhoneNumber', set: 'customers', count: 'customerPhoneNumbers', rows: (ids) => `x."customerId" = ANY(${ids})` },
  { table: 'CustomerSubscription', set: 'customers', count: 'customerSubscriptions', rows: (ids) => `x."customerId" = ANY(${ids})`, stamps: { updatedAt: NOW } },
  { table: 'Order', set: 'orders', count: 'orders', rows: (ids) => `x.id = ANY(${ids})`, stamps: { updatedAt: NOW } },
  {
    table: 'FulfillmentTrackingEvent',
    set: 'orders',
    count: 'fulfillmentTrackingEvents',
    rows: (ids) => `x."fulfillmentId" IN (SELECT f.id FROM "Fulfillment" f WHERE f."orderId" = ANY(${ids}))`,
  },
  { table: 'Return', set: 'returns', count: 'returns', rows: (ids) => `x.id = ANY(${ids})`, stamps: { updatedAt: NOW } },
  { table: 'ReturnItem', set: 'returns', count: 'returnItems', rows: (ids) => `x."returnId" = ANY(${ids})` },
  { table: 'ReturnNote', set: 'returns', count: 'returnNotes', rows: (ids) => `x."returnId" = ANY(${ids})` },
  { table: 'CustomEvent', set: 'customEvents', count: 'customEvents', rows: (ids) => `x.id = ANY(${ids})` },
  { table: 'StorefrontEvent', set: 'storefrontEvents', count: 'storefrontEvents', rows: (ids) => `x.id = ANY(${ids})`, wholeWhenStore: 'payload' },
  {
    table: 'Event',
    set: 'events',
    count: 'webhookEvents',
    rows: (ids) => `x.id = ANY(${ids})`,
    // A customer event's data is the customer: its `name` is the person's (an order's is its number).
    // A custom event's carries the merchant's properties of the person and its key, maybe their e-mail.
    personalKeys: (_q, keys) => {
      const all = keys();
      return `(CASE WHEN x.topic LIKE 'customer.%' THEN ${all} || 'name'::text
        WHEN x.topic LIKE 'custom_event.%' THEN ${all} || '{data,uniqueId}'::text[] ELSE ${all} END)`;
    },
  },
  { table: 'WebhookDelivery', set: 'events', count: 'webhookDeliveries', rows: (ids) => `x."eventId" = ANY(${ids})` },
  {
    table: 'DeliveryAttempt',
    set: 'events',
    count: 'deliveryAttempts',
    rows: (ids) => `x."deliveryId" IN (SELECT d.id FROM "WebhookDelivery" d WHERE d."eventId" = ANY(${ids}))`,
  },
  {
    table: 'AuditEntry',
    set: 'auditEntries',
    count: 'auditEntries',
    rows: (ids) => `x.id = ANY(${ids}::bigint[])`,
    // An entry's changes are named by its table's columns: the personal ones are that table's.
    personalKeys: (q) => `ARRAY(SELECT jsonb_array_elements_text(${q.param(JSON.stringify(personalColumnsByTable()), 'jsonb')} -> x."objectKind"))`,
  },
];

/** Erasing one person (their values known), or a batch of a whole store's rows (every value is some shopper's). */
type Scope = { person: Needles } | { wholeStore: true };

/** A column's erased value, as an SQL expression over `x` (each parameter added only where used: an unused one has no type). */
function erasedValue(q: Statement, table: ErasedTable, column: string, erasure: Exclude<Erasure, { erase: 'delete' }>, scope: Scope): string {
  const ref = `x."${column}"`;
  const marker = () => q.param(REDACTED, 'text');
  const nullOfType = () => `(CASE WHEN false THEN ${ref} END)`;
  const redacted = () => `(CASE WHEN ${ref} IS NULL THEN NULL ELSE ${marker()} END)`;
  const needles = 'person' in scope ? scope.person : NO_NEEDLES;
  const matching = () => `${q.param(needles.words, 'text[]')}, ${q.param(needles.digits, 'text[]')}`;
  const whole = () => `privacy_redact_json(${ref}, '{}'::text[], '{}'::text[], '{}'::text[], ${marker()}, true, false)`;
  switch (erasure.erase) {
    case 'redact':
      return redacted();
    case 'clear':
      return nullOfType();
    case 'empty':
      return `(CASE WHEN ${ref} IS NULL THEN ${ref} ELSE '{}' END)`;
    case 'whole':
      return whole();
    case 'members': {
      if ('wholeStore' in scope && table.wholeWhenStore === column) return whole();
      const keys = () => q.param(PERSONAL_KEYS, 'text[]');
      const keysHere = table.personalKeys ? table.personalKeys(q, keys) : keys();
      return `privacy_redact_json(${ref}, ${keysHere}, ${matching()}, ${marker()}, false, true)`;
    }
    case 'scrub': {
      const replacement = erasure.with === 'redact' ? redacted : nullOfType;
      if ('wholeStore' in scope) return replacement();
      return `(CASE WHEN privacy_matches(${ref}, ${matching()}) THEN ${replacement()} ELSE ${ref} END)`;
    }
  }
}

/**
 * One statement erasing the table's rows of `ids`: each erased column rewritten, only rows where
 * something changes touched (so a second erasure changes and counts nothing), or the rows
 * deleted where the table's values are lookup keys. Answers how many rows it changed. (OFFSET 0
 * keeps the planner from folding the subquery into the UPDATE, which would compute every value
 * twice, for the comparison and for the SET.)
 */
async function eraseTable(tx: Tx, table: ErasedTable, ids: string[], scope: Scope): Promise<number> {
  if (ids.length === 0) return 0;
  const q = new Statement();
  const columns = Object.entries(PERSONAL_DATA[table.table]).filter((entry): entry is [string, Erasure] => 'erase' in entry[1]);
  const rows = table.rows(q.param(ids, 'text[]'));
  if (columns.some(([, c]) => c.erase === 'delete')) {
    return tx.$executeRawUnsafe(`DELETE FROM "${table.table}" x WHERE ${rows}`, ...q.values);
  }
  const rewritten = columns.map(([column, erasure]) => [column, erasedValue(q, table, column, erasure as Exclude<Erasure, { erase: 'delete' }>, scope)] as const);
  const compared = [...rewritten, ...Object.entries(table.stamps ?? {}).filter(([column]) => column === 'redactedAt')];
  const set = [...rewritten, ...Object.entries(table.stamps ?? {})].map(([column]) => `"${column}" = s."${column}"`);
  const computed = [...rewritten, ...Object.entries(table.stamps ?? {})].map(([column, value]) => `${value} AS "${column}"`);
  return tx.$executeRawUnsafe(
    `UPDATE "${table.table}" t SET ${set.join(', ')}
     FROM (SELECT x.ctid AS tid, ${computed.join(', ')} FROM "${table.table}" x WHERE ${rows} OFFSET 0) s
     WHERE t.ctid = s.tid AND (${compared.map(([c]) => `t."${c}"`).join(', ')}, NULL) IS DISTINCT FROM (${compared.map(([c]) => `s."${c}"`).join(', ')}, NULL)`,
    ...q.values,
  );
}

/**
 * The customers' custom field values deleted, and each option (the values a segment offers) that
 * one of them gave, or that holds one of the person's values, once no other customer holds it.
 */
async function eraseCustomFields(tx: Tx, storeId: string, customerIds: string[], needles: Needles): Promise<Partial<ErasureCounts>> {
  if (customerIds.length === 0) return {};
  const [row] = await tx.$queryRawUnsafe<{ values: number; options: number }[]>(
    `WITH removed AS (
       DELETE FROM "CustomFieldValue" WHERE "customerId" = ANY($1::text[]) RETURNING "declarationId", "stringValue"
     ), gone AS (
       DELETE FROM "CustomFieldOption" o USING "CustomFieldDeclaration" d
       WHERE d.id = o."declarationId" AND d."storeId" = $2::text
         AND ((o."declarationId", o.value) IN (SELECT "declarationId", "stringValue" FROM removed) OR privacy_matches(o.value, $3::text[], $4::text[]))
         AND NOT EXISTS (SELECT 1 FROM "CustomFieldValue" v
           WHERE v."declarationId" = o."declarationId" AND v."stringValue" = o.value AND NOT (v."customerId" = ANY($1::text[])))
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM removed)::int AS values, (SELECT count(*) FROM gone)::int AS options`,
    customerIds,
    storeId,
    needles.words,
    needles.digits,
  );
  return { customFieldValues: row.values, customFieldOptions: row.options };
}

type RecordIds = Record<RecordSet, string[]>;

/**
 * The ids of every record of the person, read before anything is rewritten (rewriting the
 * e-mails would lose them). Their audit entries are read once the rest is rewritten, which
 * writes entries too (auditEntriesOf).
 */
async function personRecords(tx: Tx, storeId: string, person: Person): Promise<RecordIds> {
  const q = new Statement();
  const sets = personSets(q, storeId, person);
  const ids = (set: string) => `(SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM ${set})`;
  const [row] = await tx.$queryRawUnsafe<Omit<RecordIds, 'auditEntries'>[]>(
    `WITH ${sets} SELECT ${ids('person_customers')} AS customers, ${ids('person_orders')} AS orders, ${ids('person_returns')} AS returns,
       ${ids('person_custom_events')} AS "customEvents", ${ids('person_storefront_events')} AS "storefrontEvents", ${ids('person_events')} AS events`,
    ...q.values,
  );
  return { ...row, auditEntries: [] };
}

/** The audit entries of the person's customers, orders and returns and of their parts (AUDITED_PARENTS). */
async function auditEntriesOf(tx: Tx, storeId: string, records: RecordIds): Promise<string[]> {
  const [row] = await tx.$queryRawUnsafe<{ ids: string[] }[]>(
    `SELECT coalesce(array_agg(a.id::text), '{}') AS ids FROM "AuditEntry" a WHERE a."storeId" = $1::text AND (
       (a."objectKind" = 'Customer' AND a."objectId" = ANY($2::text[])) OR (a."parentKind" = 'Customer' AND a."parentId" = ANY($2::text[]))
       OR (a."objectKind" = 'Order' AND a."objectId" = ANY($3::text[])) OR (a."parentKind" = 'Order' AND a."parentId" = ANY($3::text[]))
       OR (a."objectKind" = 'Return' AND a."objectId" = ANY($4::text[])) OR (a."parentKind" = 'Return' AND a."parentId" = ANY($4::text[])))`,
    storeId,
    records.customers,
    records.orders,
    records.returns,
  );
  return row.ids;
}

/**
 * Deletes what quotes the person outside the store's records: answers kept for Idempotency-Key
 * replays (found by `answerNeedles`: the person's values and their orders' and returns' address
 * lines), and persisted GraphQL documents (shared by every store: a document naming the person
 * in a literal is theirs wherever it came from).
 */
async function eraseQuotations(tx: Tx, storeId: string, needles: Needles, answerNeedles: Needles): Promise<Partial<ErasureCounts>> {
  const none = (n: Needles) => n.words.length === 0 && n.digits.length === 0;
  if (none(answerNeedles)) return {};
  // A JSON answer is matched by its strings as they read, not as JSON writes them ("O\"Brien",
  // "\u00e9"); its raw text too, which holds its members' names. An answer is JSON when its
  // content type (a header of any case) says so: the service wrote it, so it parses (CASE: no
  // other body is ever cast).
  const storedAnswers = await tx.$executeRawUnsafe(
    `DELETE FROM "IdempotentRequest" r WHERE r."storeId" = $1::text AND (privacy_matches(convert_from(r.body, 'UTF8'), $2::text[], $3::text[])
       OR CASE WHEN length(r.body) > 0 AND EXISTS (SELECT 1 FROM jsonb_each_text(r.headers) AS h
           WHERE lower(h.key) = 'content-type' AND h.value ~* '^application/([[:alnum:].-]+[+])?json') THEN EXISTS (
         SELECT 1 FROM jsonb_path_query(convert_from(r.body, 'UTF8')::jsonb, 'strict $.** ? (@.type() == "string")') AS s(v)
         WHERE privacy_matches(s.v #>> '{}', $2::text[], $3::text[])) ELSE false END)`,
    storeId,
    answerNeedles.words,
    answerNeedles.digits,
  );
  if (none(needles)) return { storedAnswers };
  const persistedQueries = await tx.$executeRawUnsafe(`DELETE FROM "PersistedQuery" WHERE privacy_matches(query, $1::text[], $2::text[])`, needles.words, needles.digits);
  return { storedAnswers, persistedQueries };
}

/** A value as a regular expression (ARE) of itself. */
function literal(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What the person is called and reached by, from their records, folded as the search documents
 * are: their e-mails, names, phone numbers, their customers' street lines, browser ids, custom
 * field texts and the texts of their custom events. Each is looked for as a whole word or more
 * ("Ada" is found in "Left with Ada", not in "Adapter"), phone numbers by their digits. (An
 * order's or return's address is found by its members' names wherever it is copied, so its lines,
 * a thousand different ones for a thousand gifts, are not looked for in every text; only, with
 * `addressLines`, in the answers kept for replays, which are few per store and hold what a query
 * selected, an address's members maybe under other names.)
 */
async function needlesOf(tx: Tx, records: RecordIds, { addressLines = false } = {}): Promise<Needles> {
  const rows = await tx.$queryRawUnsafe<{ folded: string; digits: string | null }[]>(
    `WITH person_values AS (
       SELECT unnest(ARRAY[c.email, c."firstName", c."lastName", c.name, c.location->>'street1', c.location->>'street2'] || c."phoneNumbers") AS v
         FROM "Customer" c WHERE c.id = ANY($1::text[])
       UNION SELECT s.address FROM "CustomerSubscription" s WHERE s."customerId" = ANY($1::text[])
       UNION SELECT v."stringValue" FROM "CustomFieldValue" v WHERE v."customerId" = ANY($1::text[])
       UNION SELECT unnest(ARRAY[o."customerEmail", o."customerPhone", o."customerName", o."customerFirstName", o."customerLastName"])
         FROM "Order" o WHERE o.id = ANY($2::text[])
       UNION SELECT unnest(ARRAY[r."customerEmail", r."customerFirstName", r."customerLastName"]) FROM "Return" r WHERE r.id = ANY($3::text[])
       UNION SELECT unnest(ARRAY[e."customerEmail", e."anonymousId"]) FROM "StorefrontEvent" e WHERE e.id = ANY($4::text[])
       UNION SELECT e."uniqueId" FROM "CustomEvent" e WHERE e.id = ANY($5::text[])
       UNION SELECT jsonb_path_query(e.data, 'strict $.** ? (@.type() == "string")') #>> '{}' FROM "CustomEvent" e WHERE e.id = ANY($5::text[])
       UNION SELECT a.doc ->> m.member FROM (
           SELECT o."shippingAddress" AS doc FROM "Order" o WHERE o.id = ANY($2::text[])
           UNION ALL SELECT o."billingAddress" FROM "Order" o WHERE o.id = ANY($2::text[])
           UNION ALL SELECT r."originAddress" FROM "Return" r WHERE r.id = ANY($3::text[])
         ) a, unnest($7::text[]) AS m(member)
         WHERE jsonb_typeof(a.doc) = 'object'
     )
     SELECT DISTINCT trim(search_fold(v)) AS folded, search_digits(v) AS digits FROM person_values WHERE v IS NOT NULL AND length(trim(v)) >= 2 AND v <> $6::text`,
    records.customers,
    records.orders,
    records.returns,
    records.storefrontEvents,
    records.customEvents,
    REDACTED,
    addressLines ? ADDRESS_LINES : [],
  );
  const words = new Set<string>();
  const digits = new Set<string>();
  for (const { folded, digits: numbers } of rows) {
    words.add(literal(folded));
    // A phone number (digits and the signs numbers are written with) matches however it is written.
    if (numbers && numbers.length >= 7 && /^[\d\s+().-]+$/.test(folded)) digits.add(numbers.slice(-9));
  }
  const alternatives = [...words];
  const patterns: string[] = [];
  for (let i = 0; i < alternatives.length; i += VALUES_PER_PATTERN) {
    patterns.push(`(?<![[:alnum:]])(?:${alternatives.slice(i, i + VALUES_PER_PATTERN).join('|')})(?![[:alnum:]])`);
  }
  return { words: patterns, digits: [...digits] };
}

/**
 * A person's erasure is one transaction however much they have: more than an ordinary write's
 * 15 s may be needed for a shopper of many years (`npm run bench -- privacy` measures 1,000 orders).
 */
const ERASURE_TIMEOUT_MS = 120_000;

export interface CustomerErasure {
  /** The customers erased (the person's profiles). */
  customerIds: string[];
  counts: ErasureCounts;
  /** The customer.redacted event recorded, or null when nothing changed. */
  eventId: string | null;
}

function totalOf(counts: ErasureCounts): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/**
 * Erases the person in one transaction (see the header): every record found is rewritten, the
 * customers keep their rows (ids, dates) but lose every lookup key, and `customer.redacted` is
 * recorded with what changed (ids and counts only: an event's body is kept for replays). A second
 * erasure finds nothing left to change, records nothing and answers zero counts.
 */
export async function eraseCustomer(db: Db | Tx, storeId: string, key: PersonKey): Promise<CustomerErasure> {
  return inTransaction(
    db,
    async (tx) => {
      const person = await lockPerson(tx, storeId, key);
      const records = await personRecords(tx, storeId, person);
      const needles = await needlesOf(tx, records);
      const answerNeedles = await needlesOf(tx, records, { addressLines: true });
      const counts = noCounts();
      addCounts(counts, await eraseCustomFields(tx, storeId, records.customers, needles));
      const scope = { person: needles };
      for (const table of ERASED_TABLES.filter((t) => t.set !== 'auditEntries')) counts[table.count] += await eraseTable(tx, table, records[table.set], scope);
      addCounts(counts, await eraseQuotations(tx, storeId, needles, answerNeedles));
      records.auditEntries = await auditEntriesOf(tx, storeId, records);
      for (const table of ERASED_TABLES.filter((t) => t.set === 'auditEntries')) counts[table.count] += await eraseTable(tx, table, records[table.set], scope);
      let eventId: string | null = null;
      if (totalOf(counts) > 0) {
        eventId = await recordEvent(tx, {
          storeId,
          topic: 'customer.redacted',
          subjectId: person.customerIds[0] ?? storeId,
          data: { customerIds: person.customerIds, orderIds: records.orders, returnIds: records.returns, counts, redactedAt: new Date().toISOString() },
        });
      }
      return { customerIds: person.customerIds, counts, eventId };
    },
    { timeoutMs: ERASURE_TIMEOUT_MS },
  );
}

// ------------------------------------------------------------------ a whole store

/** Rows erased per transaction when a whole store is: each transaction stays short and small, whatever the store's size. */
export const STORE_ERASURE_BATCH = 500;

/**
 * How a whole store's records of each set are walked: in an order erasure never changes, through
 * an index leading with the store, a batch after another. The audit trail goes last, so that it
 * holds the entries the other batches wrote.
 */
const STORE_WALKS: Record<RecordSet, { table: string; order: 'createdAt' | 'id' }> = {
  customers: { table: 'Customer', order: 'createdAt' },
  orders: { table: 'Order', order: 'createdAt' },
  returns: { table: 'Return', order: 'createdAt' },
  customEvents: { table: 'CustomEvent', order: 'createdAt' },
  storefrontEvents: { table: 'StorefrontEvent', order: 'createdAt' },
  events: { table: 'Event', order: 'createdAt' },
  auditEntries: { table: 'AuditEntry', order: 'id' },
};

/** The next batch of a walk: ids, and where the batch after it starts. */
async function nextBatch(db: Db, storeId: string, set: RecordSet, after: { createdAt: Date; id: string } | undefined, size: number) {
  const { table, order } = STORE_WALKS[set];
  if (order === 'id') {
    return db.$queryRawUnsafe<{ id: string; createdAt: Date }[]>(
      `SELECT id::text AS id, "occurredAt" AS "createdAt" FROM "${table}" WHERE "storeId" = $1::text AND id > $2::bigint ORDER BY id LIMIT $3::int`,
      storeId,
      after?.id ?? '0',
      size,
    );
  }
  return db.$queryRawUnsafe<{ id: string; createdAt: Date }[]>(
    `SELECT id, "createdAt" FROM "${table}" WHERE "storeId" = $1::text AND ("createdAt", id) > ($2::timestamp, $3::text)
     ORDER BY "createdAt", id LIMIT $4::int`,
    storeId,
    after?.createdAt ?? new Date(0),
    after?.id ?? '',
    size,
  );
}

/** Deletes `statement`'s rows (a DELETE taking the store and a batch size) a batch at a time; answers how many and in how many batches. */
async function deleteInBatches(db: Db, statement: string, storeId: string, size: number): Promise<{ deleted: number; batches: number }> {
  let deleted = 0;
  let batches = 0;
  for (;;) {
    const removed = await db.$executeRawUnsafe(statement, storeId, size);
    if (removed === 0) return { deleted, batches };
    deleted += removed;
    batches++;
  }
}

export interface StoreErasure {
  counts: ErasureCounts;
  /** Transactions it took. */
  batches: number;
}

/**
 * Erases every shopper's personal data in the store, for a merchant that leaves. The store's
 * records are walked, `batchSize` at a time, each batch erased in a transaction of its own with
 * the same rules as a person's erasure (every text that may quote a shopper replaced, a pixel
 * payload redacted whole); then the store's custom field options and the answers kept for its
 * Idempotency-Key replays are deleted. (Persisted GraphQL documents belong to no store: a
 * person's erasure deletes those quoting them.)
 *
 * Batches are safe: a row's erasure needs no other row (no amount or key is changed, no rule
 * spans rows), and erasing an erased row changes nothing, so a run cut short leaves some rows
 * erased and the rest as they were, and running it again finishes the work; data the store
 * sends while it runs is new data, which running it again erases too. Each transaction holds one
 * batch's row locks for a moment, so the store's other work goes on meanwhile. Records no event:
 * the merchant itself asked for it.
 */
export async function eraseStoreCustomerData(db: Db, storeId: string, batchSize = STORE_ERASURE_BATCH): Promise<StoreErasure> {
  const counts = noCounts();
  let batches = 0;
  for (const set of Object.keys(STORE_WALKS) as RecordSet[]) {
    for (let after: { createdAt: Date; id: string } | undefined; ; ) {
      const page = await nextBatch(db, storeId, set, after, batchSize);
      if (page.length === 0) break;
      const ids = page.map((row) => row.id);
      await inTransaction(db, async (tx) => {
        if (set === 'customers') addCounts(counts, await eraseCustomFields(tx, storeId, ids, NO_NEEDLES));
        for (const table of ERASED_TABLES.filter((t) => t.set === set)) counts[table.count] += await eraseTable(tx, table, ids, { wholeStore: true });
      });
      batches++;
      after = page.at(-1)!;
    }
  }
  const options = await deleteInBatches(
    db,
    `DELETE FROM "CustomFieldOption" o WHERE (o."declarationId", o.value) IN (
       SELECT p."declarationId", p.value FROM "CustomFieldOption" p JOIN "CustomFieldDeclaration" d ON d.id = p."declarationId"
       WHERE d."storeId" = $1::text LIMIT $2::int)`,
    storeId,
    batchSize,
  );
  const answers = await deleteInBatches(
    db,
    `DELETE FROM "IdempotentRequest" WHERE ctid IN (SELECT ctid FROM "IdempotentRequest" WHERE "storeId" = $1::text LIMIT $2::int)`,
    storeId,
    batchSize,
  );
  counts.customFieldOptions += options.deleted;
  counts.storedAnswers += answers.deleted;
  return { counts, batches: batches + options.batches + answers.batches };
}

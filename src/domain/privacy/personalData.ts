// Where a shopper's personal data is stored, and what erasure does to it: every text and JSON
// column of every table, each either erased (how) or kept (why).

/** What an erased value reads. */
export const REDACTED = '[redacted]';


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
  ReturnOverviewFact: {
    returnId: ID,
    storeId: ID,
    currency: { keep: 'a currency code' },
    items: { keep: "what the return counts for in the overview, its items' reasons among it: rewritten from its items by their triggers (migration overview_rollups)" },
  },
  ReturnsOverviewRollup: {
    storeId: ID,
    figure: { keep: 'which of the overview\'s figures a row sums' },
    key: { keep: 'a status, currency, SKU or reason: a reason no return counts for any more is taken out by the triggers (migration overview_rollups)' },
    detail: { keep: "an ordered line's product title" },
  },
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

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
import { recordEvent } from '../events.ts';
import { inTransaction, type Db, type Tx } from '../tx.ts';
import { REDACTED, PERSONAL_DATA, PERSONAL_KEYS, personalColumnsByTable, type Erasure } from './personalData.ts';
import { lockPerson, type Person, type PersonKey } from './person.ts';
import { Statement, personSets } from './sql.ts';

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

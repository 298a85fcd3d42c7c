// A shopper's data, for their requests (GDPR articles 15, 17 and 20): the export as a paged
// list of records (the REST route and the dashboard stream it as one JSON document,
// src/customerDataExport.ts), the erasure of one person, and the erasure of every shopper of
// the store when the merchant leaves. Every rule is in domain/privacy.ts.
import { GraphQLError } from 'graphql';
import { ERASURE_KINDS, eraseCustomer, eraseStoreCustomerData, type CustomerErasure, type ErasureCounts } from '../domain/privacy/erasure.ts';
import { EXPORT_FORMAT, EXPORT_KINDS, EXPORT_VERSION, exportPage, personDigest, type ExportKind, type ExportRecord } from '../domain/privacy/export.ts';
import { findPerson, personKeyOf, type Person, type PersonKey } from '../domain/privacy/person.ts';
import { Invalid } from '../domain/errors.ts';
import { builder } from './builder.ts';
import { DEFAULT_PAGE_SIZE } from './connectionArgs.ts';
import { storeIdOf } from './context.ts';

/** Why the privacy operations have a scope of their own (the ApiScope value's description says the same). */
export const PRIVACY_SCOPE_NOTE =
  'Needs customers_privacy, a scope of its own: reading everything about one person at once, and erasing it, is more than ' +
  'customers_read or customers_write allow, so a client is given it only for answering shoppers\' requests.';

type ExportKindName = Uppercase<ExportKind>;

const CustomerDataKind = builder.enumType('CustomerDataKind', {
  description: `What a record of a customer data export is (its \`data\` is that row with the children named here, version ${EXPORT_VERSION})`,
  values: Object.fromEntries(EXPORT_KINDS.map(({ kind, description }) => [kind.toUpperCase(), { value: kind, description }])) as Record<
    ExportKindName,
    { value: ExportKind; description: string }
  >,
});

const CustomerDataRecord = builder.objectRef<ExportRecord>('CustomerDataRecord').implement({
  description:
    'One record the store holds about the person: a row with its children, every column by name (timestamps ISO 8601 in UTC, ' +
    'amounts and counters as exact decimal text, enums as text); search documents are left out.',
  fields: (t) => ({
    kind: t.field({ type: CustomerDataKind, nullable: false, description: 'What the record is', resolve: (r) => r.kind }),
    id: t.exposeID('id', { nullable: false, description: "The record's id (an audit entry's is a number)" }),
    data: t.field({ type: 'JSON', nullable: false, description: 'The row and its children, as stored', resolve: (r) => r.data }),
  }),
});

const CustomerDataSubject = builder.objectRef<Person>('CustomerDataSubject').implement({
  description:
    'Who the export or erasure is about: the customer named (or the one with the e-mail named), and the e-mail-less customers ' +
    "the store's phone lookup names for that customer's phone numbers (profiles made from an SMS consent)",
  fields: (t) => ({
    customerIds: t.idList({ nullable: false, description: 'The customers that are the person, the named one first (none when nobody has the e-mail)', resolve: (p) => p.customerIds }),
    emails: t.stringList({ nullable: false, description: 'Their e-mails, lower case: orders, returns and storefront events carrying one are theirs', resolve: (p) => p.emails }),
    phoneNumbers: t.stringList({
      nullable: false,
      description: 'Their phone numbers (E.164): orders with none of the e-mails and no customer but one of these numbers are theirs',
      resolve: (p) => p.phoneNumbers,
    }),
  }),
});

interface ExportHead {
  storeId: string;
  key: PersonKey;
  person: Person;
}

const EXPORT_SCOPE = 'customerDataExport';

function cursorScope(head: ExportHead): string {
  return `${EXPORT_SCOPE}:${personDigest(head.storeId, head.key)}`;
}

function kindIndexOf(kind: ExportKind): number {
  return EXPORT_KINDS.findIndex((k) => k.kind === kind);
}

const CustomerDataExport = builder.objectRef<ExportHead>('CustomerDataExport').implement({
  description:
    `Everything the store holds about one person (GDPR articles 15 and 20), as \`records\`: format "${EXPORT_FORMAT}", version ` +
    `${EXPORT_VERSION}. GET /v2.2/stores/{storeId}/customers/data-export streams the same records as one JSON document.`,
  fields: (t) => ({
    format: t.string({ nullable: false, description: `Always "${EXPORT_FORMAT}"`, resolve: () => EXPORT_FORMAT }),
    version: t.int({ nullable: false, description: 'Version of the records\' shape; a change of it is a new version', resolve: () => EXPORT_VERSION }),
    storeId: t.id({ nullable: false, description: 'The store (str_) that holds the records', resolve: (h) => h.storeId }),
    subject: t.field({ type: CustomerDataSubject, nullable: false, description: 'Who the records are about', resolve: (h) => h.person }),
    records: t.connection(
      {
        type: CustomerDataRecord,
        nullable: false,
        description:
          'The records, kind by kind in the order of CustomerDataKind, by id within a kind; read forward only (`first`/`after`: ' +
          '`last` or `before` give BAD_USER_INPUT). A page reads only its own records, so a whole export is read page by page ' +
          'with bounded memory however much the person has.',
        resolve: async (head, args, ctx) => {
          if (args.last != null || args.before != null) {
            throw new GraphQLError('records are read forward only: use first and after', { extensions: { code: 'BAD_USER_INPUT' } });
          }
          const scope = cursorScope(head);
          let after: { kindIndex: number; id: string } | null = null;
          if (args.after) {
            const cursor = ctx.services.cursors.decode(scope, args.after);
            if (typeof cursor.value !== 'number' || !EXPORT_KINDS[cursor.value]) throw new Invalid('after: not a cursor of this export', { path: 'after' });
            after = { kindIndex: cursor.value, id: String(cursor.tie) };
          }
          const size = args.first ?? DEFAULT_PAGE_SIZE;
          const page = size === 0 ? { records: [], hasMore: false } : await exportPage(ctx.prisma, head.storeId, head.person, after, size);
          const edges = page.records.map((record) => ({ node: record, cursor: ctx.services.cursors.encode(scope, kindIndexOf(record.kind), record.id) }));
          return {
            edges,
            pageInfo: {
              hasNextPage: page.hasMore,
              hasPreviousPage: after !== null,
              startCursor: edges[0]?.cursor ?? null,
              endCursor: edges.at(-1)?.cursor ?? null,
            },
          };
        },
      },
      { name: 'CustomerDataRecordConnection' },
      { name: 'CustomerDataRecordEdge' },
    ),
  }),
});

builder.queryField('customerDataExport', (t) =>
  t.field({
    type: CustomerDataExport,
    nullable: false,
    description:
      'Everything the store holds about one person, found by customer id or by e-mail (with their phone numbers): their customers, ' +
      'orders, returns, custom and storefront events, the webhook events about them with their deliveries, and the audit trail of ' +
      `their records. ${PRIVACY_SCOPE_NOTE} Errors: BAD_USER_INPUT unless exactly one of customerId and email is given, or for an ` +
      "invalid e-mail; NOT_FOUND for a customer id the store does not have. An e-mail nobody has gives an export of what carries it (maybe nothing).",
    authScopes: { scope: 'customers_privacy' },
    args: {
      customerId: t.arg.id({ required: false, description: 'The customer (cus_)' }),
      email: t.arg.string({ required: false, description: 'An e-mail, any case' }),
    },
    resolve: async (_root, args, ctx) => {
      const storeId = storeIdOf(ctx);
      const key = personKeyOf({ customerId: args.customerId == null ? null : String(args.customerId), email: args.email });
      return { storeId, key, person: await findPerson(ctx.prisma, storeId, key) };
    },
  }),
);

const COUNT_FIELDS = Object.keys(ERASURE_KINDS) as (keyof ErasureCounts)[];

const CustomerErasureCounts = builder.objectRef<ErasureCounts>('CustomerErasureCounts').implement({
  description: 'What an erasure changed, per kind of record: rows rewritten, or deleted where their value was all they held',
  fields: (t) =>
    Object.fromEntries(
      COUNT_FIELDS.map((kind) => [kind, t.int({ nullable: false, description: ERASURE_KINDS[kind], resolve: (counts) => counts[kind] })]),
    ) as Record<keyof ErasureCounts, ReturnType<typeof t.int>>,
});

const totalOf = (counts: ErasureCounts) => Object.values(counts).reduce((sum, n) => sum + n, 0);

const CustomerErasePayload = builder.objectRef<CustomerErasure>('CustomerErasePayload').implement({
  description: 'What customerErase answers: who was erased and what changed',
  fields: (t) => ({
    customerIds: t.idList({ nullable: false, description: 'The customers erased (their rows stay, without personal values or lookup keys)', resolve: (e) => e.customerIds }),
    counts: t.field({ type: CustomerErasureCounts, nullable: false, description: 'Rows changed per kind; all 0 when nothing was left to erase', resolve: (e) => e.counts }),
    total: t.int({ nullable: false, description: 'The counts added up', resolve: (e) => totalOf(e.counts) }),
    eventId: t.id({
      nullable: true,
      description: 'The customer.redacted event recorded for webhook subscribers (evt_); null when nothing changed',
      resolve: (e) => e.eventId,
    }),
  }),
});

const CustomerEraseInput = builder.inputType('CustomerEraseInput', {
  description: 'The person to erase: exactly one of customerId and email',
  fields: (t) => ({
    customerId: t.id({ required: false, description: 'The customer (cus_)' }),
    email: t.string({ required: false, description: 'An e-mail, any case: the customer with it and whatever else carries it' }),
  }),
});

builder.mutationField('customerErase', (t) =>
  t.field({
    type: CustomerErasePayload,
    nullable: false,
    description:
      "Erases one person's personal data everywhere the store keeps it (GDPR article 17), in one transaction, and cannot be undone: " +
      'names, e-mails, phone numbers, addresses, what they wrote, custom field values, the bodies kept for webhook replays and the ' +
      'audit trail\'s values are replaced by "[redacted]" (or cleared), while amounts, dates, SKUs, quantities, statuses and ids stay. ' +
      'The customers keep their rows but no e-mail, phone number or id lookup finds them again: later data for the same e-mail starts ' +
      'a new customer. Records customer.redacted (ids and counts, no personal value) for webhook subscribers. Erasing again changes ' +
      `nothing and answers zero counts. ${PRIVACY_SCOPE_NOTE} Errors: BAD_USER_INPUT unless exactly one of customerId and email is ` +
      'given, or for an invalid e-mail; NOT_FOUND for a customer id the store does not have.',
    authScopes: { scope: 'customers_privacy' },
    args: { input: t.arg({ type: CustomerEraseInput, required: true, description: 'Who to erase' }) },
    resolve: (_root, { input }, ctx) =>
      eraseCustomer(ctx.prisma, storeIdOf(ctx), personKeyOf({ customerId: input.customerId == null ? null : String(input.customerId), email: input.email })),
  }),
);

const StoreCustomerDataErasePayload = builder.objectRef<{ counts: ErasureCounts; batches: number }>('StoreCustomerDataErasePayload').implement({
  description: 'What storeCustomerDataErase answers',
  fields: (t) => ({
    counts: t.field({ type: CustomerErasureCounts, nullable: false, description: 'Rows changed per kind, over every batch', resolve: (e) => e.counts }),
    total: t.int({ nullable: false, description: 'The counts added up', resolve: (e) => totalOf(e.counts) }),
    batches: t.int({ nullable: false, description: 'Transactions it took (each erases at most 500 records)', resolve: (e) => e.batches }),
  }),
});

builder.mutationField('storeCustomerDataErase', (t) =>
  t.field({
    type: StoreCustomerDataErasePayload,
    nullable: false,
    description:
      "Erases every shopper's personal data in the store (Shopify's shop/redact), for a merchant that leaves; cannot be undone. " +
      'The same rules as customerErase, for every customer, order, return, event and audit entry of the store, in batches of 500 ' +
      'records, each its own transaction (a run cut short is finished by running it again, which changes nothing already erased). ' +
      "Records no event. Only from a merchant user's session (the dashboard's Settings → Privacy), never with an API secret " +
      '(FORBIDDEN), and it needs customers_privacy: an API secret that leaks must not be able to empty a store. Errors: ' +
      "BAD_USER_INPUT when confirmStoreId is not the store's id.",
    authScopes: { $all: { merchantUser: true, scope: 'customers_privacy' } },
    args: { confirmStoreId: t.arg.id({ required: true, description: "The store's id (str_), typed again as the confirmation" }) },
    resolve: (_root, args, ctx) => {
      const storeId = storeIdOf(ctx);
      if (String(args.confirmStoreId) !== storeId) throw new Invalid("confirmStoreId: type the store's own id to confirm", { path: 'confirmStoreId' });
      return eraseStoreCustomerData(ctx.prisma, storeId);
    },
  }),
);

builder.prismaObjectField('Customer', 'redactedAt', (t) =>
  t.expose('redactedAt', {
    type: 'DateTime',
    nullable: true,
    description: "When the customer's personal data was erased (customerErase); null while it is kept",
  }),
);

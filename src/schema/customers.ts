// Customers: the Customer type, lookups by e-mail, the keyset-paginated list, and
// the upsert mutation. Every rule of the upsert lives in domain/customers.ts.
import { queryFromInfo } from '@pothos/plugin-prisma';
import DataLoader from 'dataloader';
import type { Scope } from '../auth/scopes.ts';
import type { Customer as CustomerRow, Prisma } from '../generated/prisma/client.ts';
import { searchHelp, searchWhere } from '../domain/search/kinds.ts';
import {
  CUSTOMER_LOCATION_NUMBER_FIELDS,
  CUSTOMER_LOCATION_STRING_FIELDS,
  CUSTOM_FIELD_VALUE_SELECT,
  customerEmailKey,
  customerOrderFigures,
  customFieldMap,
  upsertCustomer,
  type CustomerLocation as CustomerLocationShape,
  type CustomerOrderFigures,
} from '../domain/customers.ts';
import { builder } from './builder.ts';
import { storeIdOf, hasAnyScope, perRequest, type GraphQLContext } from './context.ts';
import { money, Money } from './scalars.ts';
import { keysetConnection } from './keyset.ts';
import type { MutationFieldBuilder } from './node.ts';
import { idDescriptionOf } from './nodeTypes.ts';
import { toPlain } from '../db/reads/plain.ts';

// Writers get the customer they wrote back; readers see every customer.
const CUSTOMER_AUDIENCE: readonly Scope[] = ['customers_read', 'customers_write'];

const LOCATION_DESCRIPTIONS: Record<(typeof CUSTOMER_LOCATION_STRING_FIELDS)[number], string> = {
  street1: 'Street line 1',
  street2: 'Street line 2',
  city: 'City',
  state: 'State or province name',
  stateCode: 'State or province abbreviation',
  postalCode: 'Postal code',
  country: 'Country name',
  countryCode: 'ISO 3166-1 alpha-2 country code, e.g. "US" (stored upper case)',
  ianaTimeZoneName: 'IANA time zone identifier, e.g. "America/New_York"',
};

const COORDINATE_DESCRIPTIONS: Record<(typeof CUSTOMER_LOCATION_NUMBER_FIELDS)[number], string> = {
  latitude: 'Latitude in decimal degrees, -90 to 90',
  longitude: 'Longitude in decimal degrees, -180 to 180',
};

export const CustomerLocation = builder.objectRef<CustomerLocationShape>('CustomerLocation').implement({
  description: 'Current location of a customer',
  fields: (t) => ({
    ...Object.fromEntries(
      CUSTOMER_LOCATION_STRING_FIELDS.map((field) => [
        field,
        t.string({ nullable: true, description: LOCATION_DESCRIPTIONS[field], resolve: (l) => l[field] ?? null }),
      ]),
    ),
    ...Object.fromEntries(
      CUSTOMER_LOCATION_NUMBER_FIELDS.map((field) => [
        field,
        t.float({ nullable: true, description: COORDINATE_DESCRIPTIONS[field], resolve: (l) => l[field] ?? null }),
      ]),
    ),
  }),
});

export const Customer = builder.prismaNode('Customer', {
  description:
    'A shopper of the store, known by e-mail and/or phone number. Readable with customers_read, or with customers_write where a write answers it.',
  id: { field: 'id', description: idDescriptionOf('Customer', 'customers_read or customers_write') },
  nullable: true,
  // node(id:) sees only the caller's store: another store's customer is simply not found.
  findUnique: (id, ctx) => ({ id, storeId: storeIdOf(ctx) }),
  authScopes: (_customer, ctx) => hasAnyScope(ctx, CUSTOMER_AUDIENCE),
  fields: (t) => ({
    email: t.exposeString('email', { nullable: true, description: 'Lower case; the upsert key. Null for a customer known only by a phone number' }),
    firstName: t.exposeString('firstName', { nullable: true, description: 'First name; null when none is set' }),
    lastName: t.exposeString('lastName', { nullable: true, description: 'Last name; null when none is set' }),
    name: t.exposeString('name', { nullable: true, description: 'Display name made from first and last name' }),
    phoneNumber: t.string({
      nullable: true,
      description: 'The latest phone number (E.164)',
      resolve: (c) => c.phoneNumbers.at(-1) ?? null,
    }),
    phoneNumbers: t.exposeStringList('phoneNumbers', { nullable: false, description: 'Every phone number, in the order first seen' }),
    location: t.field({
      type: CustomerLocation,
      nullable: true,
      description: 'Current location; null when none was given',
      resolve: (c) => (c.location ?? null) as CustomerLocationShape | null,
    }),
    customFields: t.field({
      type: 'JSON',
      nullable: false,
      description: 'Custom field values as {name: value}: strings, numbers, booleans, and DATE fields as ISO 8601 strings',
      select: { customFields: { select: CUSTOM_FIELD_VALUE_SELECT } },
      resolve: (c) => customFieldMap(c.customFields),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the customer was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false, description: 'When the customer was last changed; `customers` is ordered by it' }),
  }),
});

export const CustomerConnection = builder.connectionObject({ type: Customer, name: 'CustomerConnection' });

const CustomerLocationInput = builder.inputType('CustomerLocationInput', {
  description: 'Only the fields supplied are updated; null leaves a field as it is',
  fields: (t) => ({
    ...Object.fromEntries(
      CUSTOMER_LOCATION_STRING_FIELDS.map((field) => [field, t.string({ required: false, description: LOCATION_DESCRIPTIONS[field] })]),
    ),
    ...Object.fromEntries(
      CUSTOMER_LOCATION_NUMBER_FIELDS.map((field) => [field, t.float({ required: false, description: `${COORDINATE_DESCRIPTIONS[field]}, else BAD_USER_INPUT` })]),
    ),
  }),
});

const CustomerUpsertInput = builder.inputType('CustomerUpsertInput', {
  description: 'Customer upsert. Absent or null fields leave the stored values as they are.',
  fields: (t) => ({
    email: t.string({ required: true, description: 'Upsert key, compared case-insensitively' }),
    firstName: t.string({ required: false, description: 'First name, trimmed; a blank one clears it. The display name is made from first and last name' }),
    lastName: t.string({ required: false, description: 'Last name, trimmed; a blank one clears it' }),
    phoneNumber: t.string({ required: false, description: 'E.164, e.g. "+14155550100"; appended to the phone list when new' }),
    location: t.field({ type: CustomerLocationInput, required: false, description: 'Current location; only the fields given change' }),
    customFields: t.field({
      type: 'JSON',
      required: false,
      description:
        'Object of field name (1 to 255 characters) to string (at most 500 characters), number or boolean; a new field takes the type of its value, ' +
        "DATE for an ISO 8601 date-time string. A value of another type than the field's declared one gives BAD_USER_INPUT (a STRING field also takes dates).",
    }),
  }),
});

const CustomerUpsertPayload = builder
  .objectRef<{ customer: CustomerRow; created: boolean }>('CustomerUpsertPayload')
  .implement({
    description: 'What customerUpsert answers: the customer as saved, and whether it was created.',
    fields: (t) => ({
      customer: t.field({ type: Customer, nullable: false, description: 'The customer as saved', resolve: (p) => toPlain(p.customer) }),
      created: t.exposeBoolean('created', { nullable: false, description: 'True when a new customer was made, false when an existing one was updated' }),
    }),
  });

/** customerUpsert, and upsertCustomer: its deprecated old name (`deprecationReason`). */
function customerUpsertField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.field({
    type: CustomerUpsertPayload,
    nullable: false,
    description:
      'Creates the customer with this e-mail (compared case-insensitively, stored lower case) or updates the existing one, ' +
      'with its custom fields, and records customer.created or customer.updated. Needs customers_write. Errors: BAD_USER_INPUT for an invalid ' +
      "e-mail, phone number or custom field value, or a value whose type differs from the field's declared type (every issue in " +
      'extensions.issues; nothing of the request is written). Two concurrent upserts of one new e-mail make one customer.',
    deprecationReason,
    authScopes: { scope: 'customers_write' },
    args: {
      input: t.arg({
        type: CustomerUpsertInput,
        required: true,
        description: 'The customer, keyed by email; absent or null fields leave the stored values as they are',
      }),
    },
    resolve: (_root, { input }, ctx) => upsertCustomer(ctx.prisma, storeIdOf(ctx), input),
  });
}

builder.mutationField('customerUpsert', (t) => customerUpsertField(t));
builder.mutationField('upsertCustomer', (t) => customerUpsertField(t, 'Use customerUpsert'));

builder.queryFields((t) => ({
  customer: t.prismaField({
    type: 'Customer',
    nullable: true,
    description: 'The customer with this e-mail (case-insensitive); null when the store has none. Needs customers_read.',
    authScopes: { scope: 'customers_read' },
    args: { email: t.arg.string({ required: true, description: 'E-mail address, any case; an invalid one gives BAD_USER_INPUT' }) },
    resolve: (query, _root, args, ctx) =>
      ctx.reads.customer.findUnique({ ...query, where: { storeId_email: { storeId: storeIdOf(ctx), email: customerEmailKey(args.email) } } }),
  }),
  customers: t.connection(
    {
      nullable: false,
      type: Customer,
      description: 'Customers of the store matching every filter given, most recently updated first (ties by id). Needs customers_read.',
      authScopes: { scope: 'customers_read' },
      args: {
        updatedAtMin: t.arg({ type: 'DateTime', required: false, description: 'Only customers updated at or after this time (inclusive)' }),
        updatedAtMax: t.arg({ type: 'DateTime', required: false, description: 'Only customers updated before this time (exclusive)' }),
        query: t.arg.string({ required: false, description: searchHelp('customers') }),
      },
      resolve: (_root, args, ctx, info) => {
        const storeId = storeIdOf(ctx);
        const updatedAt = { ...(args.updatedAtMin ? { gte: args.updatedAtMin } : {}), ...(args.updatedAtMax ? { lt: args.updatedAtMax } : {}) };
        const search = searchWhere<Prisma.CustomerWhereInput>('customers', storeId, args.query);
        return keysetConnection({
          cursors: ctx.services.cursors,
          args,
          sort: { field: 'updatedAt', kind: 'date', direction: 'desc' },
          scope: 'customers',
          fetch: ({ where, orderBy, take }) =>
            ctx.reads.customer.findMany({
              // The nodes' own selections (custom fields) load in this same query.
              ...queryFromInfo({ context: ctx, info, typeName: 'Customer', paths: [['edges', 'node'], ['nodes']] }),
              where: { AND: [where, { storeId, updatedAt }, search ?? {}] },
              orderBy,
              take,
            }),
        });
      },
    },
    CustomerConnection,
  ),
}));

// ---------------------------------------------------------------- what a list of customers shows

/** The order figures of the customers a request reads, loaded together: one statement per page of customers, not one per customer. */
const orderFiguresKey = {};
function orderFiguresOf(ctx: GraphQLContext, customerId: string): Promise<CustomerOrderFigures> {
  const loader = perRequest(
    ctx,
    orderFiguresKey,
    () => new DataLoader<string, CustomerOrderFigures>(async (ids) => {
      const figures = await customerOrderFigures(ctx.prisma, storeIdOf(ctx), ids);
      return ids.map((id) => figures.get(id)!);
    }),
  );
  return loader.load(customerId);
}

builder.prismaObjectFields('Customer', (t) => ({
  ordersCount: t.int({
    nullable: false,
    description: "How many orders of the store are the customer's (Order.customer)",
    resolve: async (c, _args, ctx) => (await orderFiguresOf(ctx, c.id)).ordersCount,
  }),
  lifetimeSpend: t.field({
    type: [Money],
    nullable: false,
    description: "What the customer's orders came to (their totalPrice), one amount per currency they were placed in; empty without orders",
    resolve: async (c, _args, ctx) => (await orderFiguresOf(ctx, c.id)).spend.map((s) => money(s.amount, s.currency)!),
  }),
  lastOrderAt: t.field({
    type: 'DateTime',
    nullable: true,
    description: "When the customer's latest order was placed; null without orders",
    resolve: async (c, _args, ctx) => (await orderFiguresOf(ctx, c.id)).lastOrderAt,
  }),
}));

// What the merchant dashboard and shopper portal need beyond the API doors: API
// clients (managed only from a merchant user's session, never by an API client),
// the order list, and how much of each order line can still be returned.
import { queryFromInfo } from '@pothos/plugin-prisma';
import { SCOPES, type Scope } from '../auth/scopes.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { CLAIMING_RETURN_ITEMS, returnableUnits } from '../domain/returns/locking.ts';
import { searchHelp, searchWhere } from '../domain/search/kinds.ts';
import { createApiClient, revokeApiClient } from '../domain/stores.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { keysetConnection } from './keyset.ts';
import type { MutationFieldBuilder } from './node.ts';
import { Order } from './orders.ts';

const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  customers_read: 'Read customers (with custom fields and consent), custom events and storefront events',
  customers_write: 'Create and update customers and their e-mail and SMS consent',
  orders_read: 'Read orders',
  orders_write: 'Create, sync and delete orders and record their fulfillments',
  returns_read: 'Read returns, return tags and ASN rows; also the GET endpoints of the compatibility interface',
  returns_write: 'Create, process and change returns, their notes and tags, and the billing settings; also the POST endpoints of the compatibility interface',
  inventory_read: 'Read inventory levels, inventory items, inbound shipments and purchase orders',
  inventory_write: 'Adjust inventory levels, create purchase orders, and create, ship, receive and cancel inbound shipments',
  inbound_shipments_read: 'Grants nothing at present: no field or endpoint requires it (inbound shipments are read with inventory_read)',
  products_read: 'Read products, product families, their images and attributes, and the coverage settings',
  products_write: 'Create and change products, product families, attributes and images (also in bulk), and the coverage settings',
  locations_read: 'Read locations',
  locations_write: 'Create and change locations and set the default one',
  webhooks_read: 'Read webhook subscriptions, topics and deliveries',
  webhooks_write: 'Create, change, replay and delete webhook subscriptions',
  storefront_events_write: 'Record storefront (web pixel) events',
  customer_events_write: 'Record custom events',
  invoices_read: 'Read invoices and the billing settings',
  audit_read: "Read the audit trail: who changed the store's data, when, through which door and operation, and the values before and after",
  customers_privacy:
    "Export one person's data (customerDataExport) and erase it (customerErase): all of a shopper's records at once, so given only " +
    "to what answers shoppers' requests; a merchant user's session also needs it to erase every shopper's data of the store",
};

export const ApiScope = builder.enumType('ApiScope', {
  description: 'A permission of an API client; an operation or field that needs a scope the client lacks fails with FORBIDDEN (403 on REST).',
  values: Object.fromEntries(SCOPES.map((scope) => [scope, { description: SCOPE_DESCRIPTIONS[scope] }])) as Record<Scope, { description: string }>,
});

builder.prismaObject('ApiClient', {
  description: 'A holder of an API secret; the secret itself is shown once, at creation',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Opaque id of the API client (it starts with `apc_`)' }),
    name: t.exposeString('name', { nullable: false, description: 'What the client is for, as given at creation' }),
    scopes: t.field({
      type: [ApiScope],
      nullable: false,
      description: 'What its secret may do',
      resolve: (c) => c.scopes.filter((s): s is (typeof SCOPES)[number] => (SCOPES as readonly string[]).includes(s)),
    }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true, description: 'When the client was revoked (its secret then fails with 401); null while it is active' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the client was created' }),
  }),
});

/** What apiClientCreate answers, under its name and under the deprecated createApiClient's one. */
function apiClientCreatePayload(name: string, description: string) {
  return builder.objectRef<{ id: string; secret: string }>(name).implement({
    description,
    fields: (t) => ({
      apiClient: t.prismaField({
        type: 'ApiClient',
        nullable: false,
        description: 'The client made: its id (apc_), name and scopes',
        resolve: (query, payload, _args, ctx) => ctx.reads.apiClient.findUniqueOrThrow({ ...query, where: { id: payload.id } }),
      }),
      secret: t.exposeString('secret', {
        nullable: false,
        description: 'The API secret (sk_ followed by 43 characters), sent as `Authorization: Bearer <secret>`. Shown this once; only its hash is kept',
      }),
    }),
  });
}

const ApiClientCreatePayload = apiClientCreatePayload('ApiClientCreatePayload', 'What apiClientCreate answers: the new client and its secret, shown only here');
const CreateApiClientPayload = apiClientCreatePayload(
  'CreateApiClientPayload',
  'Payload of the deprecated createApiClient; use apiClientCreate, which answers the same fields as ApiClientCreatePayload',
);

const MERCHANT_ONLY = { merchantUser: true } as const;

builder.queryFields((t) => ({
  apiClients: t.prismaField({
    type: ['ApiClient'],
    nullable: false,
    description: "The store's API clients, revoked ones included, newest first. Only from a merchant user's session (the dashboard); an API secret gets FORBIDDEN.",
    authScopes: MERCHANT_ONLY,
    resolve: (query, _root, _args, ctx) =>
      ctx.reads.apiClient.findMany({ ...query, where: { storeId: storeIdOf(ctx) }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  }),
  orders: t.connection(
    {
      type: Order,
      nullable: false,
      description: 'Orders of the store matching every filter given, newest first (by createdAt, ties by id). Needs orders_read.',
      authScopes: { scope: 'orders_read' },
      args: {
        name: t.arg.string({ required: false, description: 'Only the order with this name, e.g. "#1001"' }),
        query: t.arg.string({ required: false, description: searchHelp('orders') }),
      },
      resolve: (_root, args, ctx, info) => {
        const storeId = storeIdOf(ctx);
        const search = searchWhere<Prisma.OrderWhereInput>('orders', storeId, args.query);
        return keysetConnection({
          cursors: ctx.services.cursors,
          args,
          sort: { field: 'createdAt', kind: 'date', direction: 'desc' },
          scope: 'orders',
          fetch: ({ where, orderBy, take }) =>
            ctx.reads.order.findMany({
              ...queryFromInfo({ context: ctx, info, typeName: 'Order', paths: [['edges', 'node'], ['nodes']] }),
              where: { AND: [where, { storeId }, args.name ? { name: args.name } : {}, search ?? {}] },
              orderBy,
              take,
            }),
        });
      },
    },
    { name: 'OrderConnection' },
    { name: 'OrderEdge' },
  ),
}));

/** apiClientCreate, and createApiClient: its deprecated old name (`deprecationReason`). */
function apiClientCreateField(t: MutationFieldBuilder, payload: typeof ApiClientCreatePayload, deprecationReason?: string) {
  return t.field({
    type: payload,
    nullable: false,
    description:
      'Creates an API client of the store with a name and scopes, and answers its secret, which is shown only here (only its hash is ' +
      "stored). Only from a merchant user's session (the dashboard), never with an API secret: FORBIDDEN otherwise. Errors: " +
      'BAD_USER_INPUT for an empty name or no scope.',
    deprecationReason,
    authScopes: MERCHANT_ONLY,
    args: {
      name: t.arg.string({ required: true, description: 'What the client is for, as the dashboard lists it; not empty (trimmed)' }),
      scopes: t.arg({ type: [ApiScope], required: true, description: 'What the secret may do; at least one; repeated scopes count once' }),
    },
    resolve: (_root, args, ctx) => createApiClient(ctx.prisma, { storeId: storeIdOf(ctx), name: args.name, scopes: args.scopes }),
  });
}

/** apiClientRevoke, and revokeApiClient: its deprecated old name (`deprecationReason`). */
function apiClientRevokeField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'ApiClient',
    nullable: false,
    description:
      'Revokes an API client of the store: from then on its secret fails with 401 on every door and every instance. Answers the client ' +
      "with its revokedAt. Only from a merchant user's session (the dashboard): FORBIDDEN otherwise. Errors: NOT_FOUND for an id that " +
      "is not one of the store's clients; CONFLICT when the client is already revoked.",
    deprecationReason,
    authScopes: MERCHANT_ONLY,
    args: { id: t.arg.id({ required: true, description: 'The API client (apc_)' }) },
    resolve: async (query, _root, args, ctx) => {
      await revokeApiClient(ctx.prisma, String(args.id), storeIdOf(ctx));
      return ctx.reads.apiClient.findUniqueOrThrow({ ...query, where: { id: String(args.id) } });
    },
  });
}

builder.mutationFields((t) => ({
  apiClientCreate: apiClientCreateField(t, ApiClientCreatePayload),
  createApiClient: apiClientCreateField(t, CreateApiClientPayload, 'Use apiClientCreate'),
  apiClientRevoke: apiClientRevokeField(t),
  revokeApiClient: apiClientRevokeField(t, 'Use apiClientRevoke'),
}));

// The claiming items are read with the line, in the statement that reads it (a page of returns
// with their lines stays one statement), not by a grouped query of their own afterwards.
builder.prismaObjectField('OrderLineItem', 'returnableQuantity', (t) =>
  t.int({
    nullable: false,
    description: 'Units ordered minus units claimed by live returns (never below 0): how many a new return may still claim',
    select: { quantity: true, returnItems: { where: CLAIMING_RETURN_ITEMS, select: { quantity: true } } },
    resolve: (line) => returnableUnits(line.quantity, line.returnItems.reduce((sum, item) => sum + item.quantity, 0)),
  }),
);

builder.prismaObjectField('Order', 'customerPortalToken', (t) =>
  t.string({
    nullable: false,
    description: 'Signed token for GET /v2.2/stores/{storeId}/customer-portal?token&order_id (valid 30 days): opens the order in the shopper portal. Needs returns_write.',
    authScopes: { scope: 'returns_write' },
    select: { id: true, storeId: true },
    resolve: (order, _args, ctx) => ctx.services.portalLinks.sign(order.storeId, order.id),
  }),
);

// What the merchant dashboard and shopper portal need beyond the API doors: API
// clients (managed only from a merchant user's session, never by an API client),
// the order list, and how much of each order line can still be returned.
import { queryFromInfo } from '@pothos/plugin-prisma';
import DataLoader from 'dataloader';
import { SCOPES } from '../auth/scopes.ts';
import { signPortalToken } from '../auth/shopper.ts';
import { claimedQuantities } from '../domain/returns.ts';
import { createApiClient, revokeApiClient } from '../domain/stores.ts';
import { builder } from './builder.ts';
import { perRequest, storeIdOf, type GraphQLContext } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { Order } from './orders.ts';

export const ApiScope = builder.enumType('ApiScope', { values: SCOPES });

builder.prismaObject('ApiClient', {
  description: 'A holder of an API secret; the secret itself is shown once, at creation',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    name: t.exposeString('name', { nullable: false }),
    scopes: t.field({ type: [ApiScope], nullable: false, resolve: (c) => c.scopes.filter((s): s is (typeof SCOPES)[number] => (SCOPES as readonly string[]).includes(s)) }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false }),
  }),
});

const CreateApiClientPayload = builder.objectRef<{ id: string; secret: string }>('CreateApiClientPayload').implement({
  fields: (t) => ({
    apiClient: t.prismaField({
      type: 'ApiClient',
      nullable: false,
      resolve: (query, payload, _args, ctx) => ctx.reads.apiClient.findUniqueOrThrow({ ...query, where: { id: payload.id } }),
    }),
    secret: t.exposeString('secret', { nullable: false, description: 'Shown this once; only its hash is kept' }),
  }),
});

const MERCHANT_ONLY = { merchantUser: true } as const;

builder.queryFields((t) => ({
  apiClients: t.prismaField({
    type: ['ApiClient'],
    nullable: false,
    description: "The store's API clients, newest first (a merchant user's session only)",
    authScopes: MERCHANT_ONLY,
    resolve: (query, _root, _args, ctx) =>
      ctx.reads.apiClient.findMany({ ...query, where: { storeId: storeIdOf(ctx) }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  }),
  orders: t.connection(
    {
      type: Order,
      nullable: false,
      description: 'Orders of the store, newest first (ties by id)',
      authScopes: { scope: 'orders_read' },
      args: { name: t.arg.string({ required: false, description: 'Only the order with this name, e.g. "#1001"' }) },
      resolve: (_root, args, ctx, info) => {
        const storeId = storeIdOf(ctx);
        return keysetConnection({
          args,
          sort: { field: 'createdAt', kind: 'date', direction: 'desc' },
          scope: 'orders',
          fetch: ({ where, orderBy, take }) =>
            ctx.reads.order.findMany({
              ...queryFromInfo({ context: ctx, info, typeName: 'Order', paths: [['edges', 'node'], ['nodes']] }),
              where: { AND: [where, { storeId }, args.name ? { name: args.name } : {}] },
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

builder.mutationFields((t) => ({
  createApiClient: t.field({
    type: CreateApiClientPayload,
    nullable: false,
    description: "Creates an API client of the store (a merchant user's session only)",
    authScopes: MERCHANT_ONLY,
    args: { name: t.arg.string({ required: true }), scopes: t.arg({ type: [ApiScope], required: true }) },
    resolve: (_root, args, ctx) => createApiClient(ctx.prisma, { storeId: storeIdOf(ctx), name: args.name, scopes: args.scopes }),
  }),
  revokeApiClient: t.prismaField({
    type: 'ApiClient',
    nullable: false,
    description: "Revokes an API client of the store; its secret then fails with 401 (a merchant user's session only)",
    authScopes: MERCHANT_ONLY,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      await revokeApiClient(ctx.prisma, String(args.id), storeIdOf(ctx));
      return ctx.reads.apiClient.findUniqueOrThrow({ ...query, where: { id: String(args.id) } });
    },
  }),
}));

function claimedLoader(ctx: GraphQLContext) {
  return perRequest(ctx, claimedLoader, () =>
    new DataLoader<string, number>(async (lineIds) => {
      const claimed = await claimedQuantities(ctx.prisma, [...lineIds]);
      return lineIds.map((id) => claimed.get(id) ?? 0);
    }),
  );
}

builder.prismaObjectField('OrderLineItem', 'returnableQuantity', (t) =>
  t.int({
    nullable: false,
    description: 'Units ordered minus units claimed by live returns',
    select: { id: true, quantity: true },
    resolve: async (line, _args, ctx) => Math.max(0, line.quantity - (await claimedLoader(ctx).load(line.id))),
  }),
);

builder.prismaObjectField('Order', 'customerPortalToken', (t) =>
  t.string({
    nullable: false,
    description: 'Signed token for GET /v2.2/stores/{storeId}/customer-portal?token&order_id (valid 30 days): opens the order in the shopper portal',
    authScopes: { scope: 'returns_write' },
    select: { id: true, storeId: true },
    resolve: (order) => signPortalToken(order.storeId, order.id),
  }),
);

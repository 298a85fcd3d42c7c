import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';

export const StoreKind = builder.enumType('StoreKind', {
  description: 'What kind of account a store is.',
  values: {
    MERCHANT: { description: 'A merchant selling to shoppers (orders, returns, customers); it may be linked to fulfillment services whose locations then serve it' },
    FULFILLMENT_SERVICE: { description: 'A third-party fulfillment service whose locations can serve linked merchants; it sees the inventory levels at its own locations' },
  } as const,
});

builder.prismaObject('Store', {
  description: 'An account of the service: the merchant or fulfillment service an API secret belongs to.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Opaque id of the store (it starts with `str_`), the {storeId} of REST paths' }),
    name: t.exposeString('name', { description: 'Name of the store' }),
    kind: t.expose('kind', { type: StoreKind, description: 'Merchant or fulfillment service' }),
    currency: t.exposeString('currency', { description: "ISO 4217 code of the store's currency: orders that name no currency are in it, and so are its billing fees" }),
    defaultLocation: t.relation('defaultLocation', {
      nullable: true,
      description: 'Where orders that name no location commit stock (change it with locationSetDefault); null when none is set. Needs locations_read.',
      authScopes: { scope: 'locations_read' },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the store was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the store was last changed' }),
  }),
});

builder.queryField('store', (t) =>
  t.prismaField({
    type: 'Store',
    description: 'The store the API secret belongs to. Needs no scope.',
    authScopes: { authenticated: true },
    resolve: (query, _root, _args, ctx) => ctx.reads.store.findUniqueOrThrow({ ...query, where: { id: storeIdOf(ctx) } }),
  }),
);

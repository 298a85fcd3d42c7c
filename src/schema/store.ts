import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';

export const StoreKind = builder.enumType('StoreKind', { values: ['MERCHANT', 'FULFILLMENT_SERVICE'] as const });

builder.prismaObject('Store', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    kind: t.expose('kind', { type: StoreKind }),
    currency: t.exposeString('currency'),
    defaultLocation: t.relation('defaultLocation', {
      nullable: true,
      description: 'Where orders that name no location commit stock (change it with locationSetDefault)',
      authScopes: { scope: 'locations_read' },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryField('store', (t) =>
  t.prismaField({
    type: 'Store',
    description: 'The store the API secret belongs to',
    authScopes: { authenticated: true },
    resolve: (query, _root, _args, ctx) => ctx.reads.store.findUniqueOrThrow({ ...query, where: { id: storeIdOf(ctx) } }),
  }),
);

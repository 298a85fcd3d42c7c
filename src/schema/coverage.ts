// Coverage sold at checkout: the store's coverage products and their price rules
// (read with products_read, changed with products_write), the coverage an order sold
// (Order.coverages), and the public storefront fields that price a cart and describe
// the offer. The public fields take the store id as an argument and need no secret:
// they read nothing but that store's coverage offer.
import type { CoverageProduct as CoverageProductRow } from '../generated/prisma/client.ts';
import { COVERAGE_TYPES, coverageProducts, quoteCoverage, requireStore, updateCoverageSettings, type CoverageQuote } from '../domain/coverage.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { money, Money } from './scalars.ts';
import { payloadType, withUserErrors } from './userErrors.ts';

export const CoverageType = builder.enumType('CoverageType', {
  values: {
    SHIPPING_FAILURE: { description: 'Shipping protection: the order is replaced or refunded when its shipment fails' },
    RETURN_SHIPPING: { description: 'Return shipping paid by the store' },
  } as const,
});

const CoverageProduct = builder.objectRef<CoverageProductRow>('CoverageProduct').implement({
  description: "One coverage type's offer and price rule; its id is the product id a storefront puts in the cart",
  fields: (t) => ({
    id: t.string({ nullable: true, description: 'Null until the type was first configured', resolve: (p) => p.id || null }),
    type: t.field({ type: CoverageType, nullable: false, resolve: (p) => p.type }),
    enabled: t.exposeBoolean('enabled', { nullable: false }),
    title: t.exposeString('title', { nullable: false, description: 'Merchant text of the opt-in control' }),
    description: t.exposeString('description', { nullable: false }),
    percentage: t.field({ type: 'Decimal', nullable: false, description: 'Percent of the eligible merchandise value', resolve: (p) => p.percentage.toString() }),
    minimumPrice: t.field({ type: 'Decimal', nullable: false, description: "In the cart's currency", resolve: (p) => p.minimumPrice.toString() }),
    maximumPrice: t.field({ type: 'Decimal', nullable: false, description: "In the cart's currency", resolve: (p) => p.maximumPrice.toString() }),
    eligibleProductIds: t.exposeStringList('eligibleProductIds', { nullable: false, description: 'Storefront product ids covered; empty: every product' }),
  }),
});

const CoverageQuoteRef = builder.objectRef<CoverageQuote>('CoverageQuote').implement({
  description: "A coverage type's price for one cart",
  fields: (t) => ({
    coverageProductId: t.exposeString('coverageProductId', { nullable: false }),
    type: t.field({ type: CoverageType, nullable: false, resolve: (q) => q.type }),
    price: t.field({ type: Money, nullable: false, resolve: (q) => money(q.price, q.currency)! }),
    lineIds: t.exposeStringList('lineIds', { nullable: false, description: 'The cart lines it covers' }),
  }),
});

const CartMoneyInput = builder.inputType('StorefrontMoneyInput', {
  fields: (t) => ({
    amount: t.string({ required: true, description: 'Decimal string' }),
    currency: t.string({ required: true }),
  }),
});

const CartLineInput = builder.inputType('StorefrontCartLineInput', {
  fields: (t) => ({
    id: t.string({ required: true }),
    quantity: t.int({ required: true }),
    productId: t.string({ required: true }),
    priceTotal: t.field({ type: CartMoneyInput, required: true }),
  }),
});

const CartInput = builder.inputType('StorefrontCartInput', {
  fields: (t) => ({
    lines: t.field({ type: [CartLineInput], required: true }),
    priceTotal: t.field({ type: CartMoneyInput, required: true }),
  }),
});

const CoverageSettingsInput = builder.inputType('CoverageSettingsInput', {
  description: 'Absent fields keep their value',
  fields: (t) => ({
    type: t.field({ type: CoverageType, required: true }),
    enabled: t.boolean({ required: false }),
    title: t.string({ required: false }),
    description: t.string({ required: false }),
    percentage: t.field({ type: 'Decimal', required: false, description: '0..100' }),
    minimumPrice: t.field({ type: 'Decimal', required: false }),
    maximumPrice: t.field({ type: 'Decimal', required: false, description: 'At least minimumPrice' }),
    eligibleProductIds: t.stringList({ required: false }),
  }),
});

builder.prismaObject('OrderCoverage', {
  description: 'Coverage an order sold: a line whose productId is a coverage product',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    type: t.field({ type: CoverageType, nullable: false, resolve: (c) => c.type }),
    premium: t.field({ type: Money, nullable: false, resolve: (c) => money(c.premium, c.currency)! }),
    coverageProductId: t.exposeString('coverageProductId', { nullable: false }),
    orderLineItemId: t.exposeString('orderLineItemId', { nullable: false }),
  }),
});

builder.prismaObjectField('Order', 'coverages', (t) =>
  t.relation('coverages', { nullable: false, description: 'Coverage the order sold', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
);

builder.queryFields((t) => ({
  coverageProducts: t.field({
    type: [CoverageProduct],
    nullable: false,
    description: "The store's coverage offer, one entry per coverage type",
    authScopes: { scope: 'products_read' },
    resolve: (_root, _args, ctx) => coverageProducts(ctx.prisma, storeIdOf(ctx)),
  }),
  storefrontCoverageOffer: t.field({
    type: [CoverageProduct],
    nullable: false,
    description: 'Public: the enabled coverage of a store, for storefronts (no secret needed)',
    args: { storeId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await requireStore(ctx.prisma, String(args.storeId));
      return (await coverageProducts(ctx.prisma, String(args.storeId))).filter((p) => p.enabled);
    },
  }),
  storefrontCoverageQuote: t.field({
    type: [CoverageQuoteRef],
    nullable: false,
    description: "Public: prices the store's enabled coverage for a cart (no secret needed)",
    args: { storeId: t.arg.id({ required: true }), cart: t.arg({ type: CartInput, required: true }) },
    resolve: (_root, args, ctx) => quoteCoverage(ctx.prisma, String(args.storeId), args.cart),
  }),
}));

const CoverageProductPayload = payloadType('CoverageProductPayload', 'coverageProduct', CoverageProduct);

builder.mutationField('coverageSettingsUpdate', (t) =>
  t.field({
    type: CoverageProductPayload,
    description: `Changes one coverage type (${COVERAGE_TYPES.join(', ')}): on/off, text, price rule, eligible products`,
    authScopes: { scope: 'products_write' },
    args: { input: t.arg({ type: CoverageSettingsInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      withUserErrors({ ctx, input: 'input' }, () =>
        updateCoverageSettings(ctx.prisma, storeIdOf(ctx), {
          ...input,
          percentage: input.percentage == null ? input.percentage : String(input.percentage),
          minimumPrice: input.minimumPrice == null ? input.minimumPrice : String(input.minimumPrice),
          maximumPrice: input.maximumPrice == null ? input.maximumPrice : String(input.maximumPrice),
        }),
      ),
  }),
);

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
  description: 'A kind of coverage a store can sell at checkout.',
  values: {
    SHIPPING_FAILURE: { description: 'Shipping protection: the order is replaced or refunded when its shipment fails' },
    RETURN_SHIPPING: { description: 'Return shipping paid by the store' },
  } as const,
});

const CoverageProduct = builder.objectRef<CoverageProductRow>('CoverageProduct').implement({
  description: "One coverage type's offer and price rule; its id is the product id a storefront puts in the cart",
  fields: (t) => ({
    id: t.string({ nullable: true, description: 'Null until the type was first configured', resolve: (p) => p.id || null }),
    type: t.field({ type: CoverageType, nullable: false, description: 'The coverage type this entry configures', resolve: (p) => p.type }),
    enabled: t.exposeBoolean('enabled', { nullable: false, description: 'Whether storefronts are offered it; false until turned on' }),
    title: t.exposeString('title', { nullable: false, description: 'Merchant text of the opt-in control, 1 to 500 characters' }),
    description: t.exposeString('description', { nullable: false, description: 'Merchant text explaining the coverage to shoppers, at most 500 characters (may be empty)' }),
    percentage: t.field({
      type: 'Decimal',
      nullable: false,
      description: 'Price as a percent (0 to 100) of the value of the eligible cart lines',
      resolve: (p) => p.percentage.toString(),
    }),
    minimumPrice: t.field({ type: 'Decimal', nullable: false, description: "Lowest price, an amount in the cart's currency", resolve: (p) => p.minimumPrice.toString() }),
    maximumPrice: t.field({
      type: 'Decimal',
      nullable: false,
      description: "Highest price, an amount in the cart's currency; at least minimumPrice",
      resolve: (p) => p.maximumPrice.toString(),
    }),
    eligibleProductIds: t.exposeStringList('eligibleProductIds', { nullable: false, description: 'Storefront product ids covered; empty: every product' }),
  }),
});

const CoverageQuoteRef = builder.objectRef<CoverageQuote>('CoverageQuote').implement({
  description: "A coverage type's price for one cart",
  fields: (t) => ({
    coverageProductId: t.exposeString('coverageProductId', { nullable: false, description: 'Id of the coverage product, the product id to add to the cart to buy it' }),
    type: t.field({ type: CoverageType, nullable: false, description: 'The coverage type priced', resolve: (q) => q.type }),
    price: t.field({
      type: Money,
      nullable: false,
      description:
        "The percentage of the covered lines' value, held between minimumPrice and maximumPrice and rounded half-up to the currency's digits, in the cart's currency",
      resolve: (q) => money(q.price, q.currency)!,
    }),
    lineIds: t.exposeStringList('lineIds', { nullable: false, description: 'The cart lines it covers' }),
  }),
});

const CartMoneyInput = builder.inputType('StorefrontMoneyInput', {
  description: 'An amount of money as a storefront cart gives it.',
  fields: (t) => ({
    amount: t.string({ required: true, description: 'Decimal string in `currency`, e.g. "12.50" (not minor units); else BAD_USER_INPUT' }),
    currency: t.string({ required: true, description: "ISO 4217 code; every line must be in the cart's currency, else BAD_USER_INPUT" }),
  }),
});

const CartLineInput = builder.inputType('StorefrontCartLineInput', {
  description: 'One line of a storefront cart.',
  fields: (t) => ({
    id: t.string({ required: true, description: "The cart line's id; a quote lists the lines it covers by it" }),
    quantity: t.int({ required: true, description: 'Units on the line (the price uses priceTotal, not this)' }),
    productId: t.string({ required: true, description: "The storefront's product id: decides eligibility; lines of coverage products are never covered" }),
    priceTotal: t.field({ type: CartMoneyInput, required: true, description: 'Price of the whole line (all its units), not negative' }),
  }),
});

const CartInput = builder.inputType('StorefrontCartInput', {
  description: 'A storefront cart to price coverage for, in one currency.',
  fields: (t) => ({
    lines: t.field({ type: [CartLineInput], required: true, description: "The cart's lines" }),
    priceTotal: t.field({ type: CartMoneyInput, required: true, description: "Total of the cart; its currency is the cart's currency" }),
  }),
});

const CoverageSettingsInput = builder.inputType('CoverageSettingsInput', {
  description: 'Absent fields keep their value',
  fields: (t) => ({
    type: t.field({ type: CoverageType, required: true, description: 'The coverage type to change' }),
    enabled: t.boolean({ required: false, description: 'Turns the offer on or off' }),
    title: t.string({ required: false, description: 'Text of the opt-in control, 1 to 500 characters, not blank' }),
    description: t.string({ required: false, description: 'Text explaining the coverage, at most 500 characters' }),
    percentage: t.field({ type: 'Decimal', required: false, description: 'Percent of the eligible merchandise value, 0 to 100, at most 4 decimal places' }),
    minimumPrice: t.field({ type: 'Decimal', required: false, description: "Lowest price in the cart's currency, >= 0, at most 4 decimal places" }),
    maximumPrice: t.field({ type: 'Decimal', required: false, description: 'Highest price, at least minimumPrice, at most 4 decimal places' }),
    eligibleProductIds: t.stringList({ required: false, description: 'Storefront product ids covered, none blank; an empty list covers every product' }),
  }),
});

builder.prismaObject('OrderCoverage', {
  description: 'Coverage an order sold: a line whose productId is a coverage product',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Opaque id of this record (it starts with `ocv_`)' }),
    type: t.field({ type: CoverageType, nullable: false, description: 'The coverage type sold', resolve: (c) => c.type }),
    premium: t.field({
      type: Money,
      nullable: false,
      description: "What the shopper paid for it: the line's price times its quantity, in the order's currency",
      resolve: (c) => money(c.premium, c.currency)!,
    }),
    coverageProductId: t.exposeString('coverageProductId', { nullable: false, description: "The coverage product sold (the line's productId)" }),
    orderLineItemId: t.exposeString('orderLineItemId', { nullable: false, description: 'Id of the order line that sold it (`oli_`)' }),
  }),
});

builder.prismaObjectField('Order', 'coverages', (t) =>
  t.relation('coverages', { nullable: false, description: 'Coverage the order sold', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
);

builder.queryFields((t) => ({
  coverageProducts: t.field({
    type: [CoverageProduct],
    nullable: false,
    description: "The store's coverage settings, one entry per coverage type (a type never configured is off, with defaults). Needs products_read.",
    authScopes: { scope: 'products_read' },
    resolve: (_root, _args, ctx) => coverageProducts(ctx.prisma, storeIdOf(ctx)),
  }),
  storefrontCoverageOffer: t.field({
    type: [CoverageProduct],
    nullable: false,
    description:
      "The enabled coverage of any store, for storefronts: needs an API secret but no scope (the REST storefront routes need no secret). NOT_FOUND for an unknown store.",
    args: { storeId: t.arg.id({ required: true, description: "The store's id (`str_`)" }) },
    resolve: async (_root, args, ctx) => {
      await requireStore(ctx.prisma, String(args.storeId));
      return (await coverageProducts(ctx.prisma, String(args.storeId))).filter((p) => p.enabled);
    },
  }),
  storefrontCoverageQuote: t.field({
    type: [CoverageQuoteRef],
    nullable: false,
    description:
      "Prices a store's enabled coverage for a cart: one quote per type with eligible merchandise of value above 0. Needs an API secret but no scope; " +
      'NOT_FOUND for an unknown store, BAD_USER_INPUT for an invalid amount or currency or lines in another currency.',
    args: {
      storeId: t.arg.id({ required: true, description: "The store's id (`str_`)" }),
      cart: t.arg({ type: CartInput, required: true, description: 'The cart to price' }),
    },
    resolve: (_root, args, ctx) => quoteCoverage(ctx.prisma, String(args.storeId), args.cart),
  }),
}));

const CoverageProductPayload = payloadType('CoverageProductPayload', 'coverageProduct', CoverageProduct, {
  type: 'What coverageSettingsUpdate answers: the coverage product as saved, or userErrors.',
  field: 'The coverage product as saved; null when the change was refused',
});

builder.mutationField('coverageSettingsUpdate', (t) =>
  t.field({
    type: CoverageProductPayload,
    description:
      `Changes one coverage type (${COVERAGE_TYPES.join(', ')}): on/off, text, price rule, eligible products. ` +
      'Needs products_write; invalid settings come back in userErrors (INVALID) and nothing is written.',
    authScopes: { scope: 'products_write' },
    args: { input: t.arg({ type: CoverageSettingsInput, required: true, description: 'The coverage type and the settings to change' }) },
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

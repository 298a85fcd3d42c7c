// Orders: the Order and OrderLineItem types (also reached from returns), the order
// lookups, and the createOrder mutation. Rules live in domain/orders.ts.
import type { Scope } from '../auth/scopes.ts';
import { createOrder, type OrderAddressInput as AddressInput } from '../domain/orders.ts';
import { builder } from './builder.ts';
import { hasAnyScope, storeIdOf } from './context.ts';
import { money, Money } from './scalars.ts';
import { Location } from './inventory.ts';
import { toPlain } from '../db/reads/plain.ts';

// Order readers: order clients, and return clients (a return shows the order it belongs to).
const ORDER_AUDIENCE: readonly Scope[] = ['orders_read', 'orders_write', 'returns_read', 'returns_write'];

/** The stored address JSON has the shape of the creation input's address. */
type AddressShape = AddressInput;

export const OrderAddress = builder.objectRef<AddressShape>('OrderAddress').implement({
  description: 'Shipping or billing address of an order (spec 2.4.4)',
  fields: (t) => ({
    address1: t.string({ nullable: true, resolve: (a) => a.address1 ?? null }),
    address2: t.string({ nullable: true, resolve: (a) => a.address2 ?? null }),
    city: t.string({ nullable: true, resolve: (a) => a.city ?? null }),
    province: t.string({ nullable: true, resolve: (a) => a.province ?? null }),
    country: t.string({ nullable: true, resolve: (a) => a.country ?? null }),
    postalCode: t.string({ nullable: true, resolve: (a) => a.postalCode ?? null }),
  }),
});

interface OrderCustomerShape {
  externalId: string | null;
  email: string | null;
  phoneNumber: string | null;
  name: string | null;
  firstName: string | null;
  lastName: string | null;
}

export const OrderCustomer = builder.objectRef<OrderCustomerShape>('OrderCustomer').implement({
  description: 'The customer as the merchant submitted it with the order (spec 2.4.2)',
  fields: (t) => ({
    externalId: t.exposeString('externalId', { nullable: true, description: "The merchant's customer id" }),
    email: t.exposeString('email', { nullable: true }),
    phoneNumber: t.exposeString('phoneNumber', { nullable: true }),
    name: t.exposeString('name', { nullable: true }),
    firstName: t.exposeString('firstName', { nullable: true }),
    lastName: t.exposeString('lastName', { nullable: true }),
  }),
});

/** The columns of a line that load with every line: those nearly every selection of one reads. */
const LINE_COLUMNS = { id: true, externalId: true, position: true, title: true, quantity: true, sku: true, price: true, discount: true, externalProductId: true } as const;

export const OrderLineItem = builder.prismaObject('OrderLineItem', {
  // Select mode (builder.ts): a line is read under every order and every returned item, and
  // most of its columns (stock bookkeeping, image, variant) are rarely asked for.
  select: LINE_COLUMNS,
  authScopes: (_item, ctx) => hasAnyScope(ctx, ORDER_AUDIENCE),
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (line) => line.id }),
    externalId: t.string({ nullable: false, description: "The merchant's line item id", resolve: (line) => line.externalId }),
    position: t.int({ nullable: false, description: 'Index of the line in the order as submitted', resolve: (line) => line.position }),
    title: t.string({ nullable: false, resolve: (line) => line.title }),
    quantity: t.int({ nullable: false, resolve: (line) => line.quantity }),
    sku: t.string({ nullable: true, resolve: (line) => line.sku }),
    price: t.field({
      type: Money,
      nullable: true,
      select: { order: { select: { currency: true } } },
      resolve: (item) => money(item.price, item.order.currency),
    }),
    discount: t.field({
      type: Money,
      nullable: true,
      select: { order: { select: { currency: true } } },
      resolve: (item) => money(item.discount, item.order.currency),
    }),
    product: t.relation('product', {
      nullable: true,
      description: "Our product the line matched by the merchant's productId or sku, if any",
      authScopes: { scope: 'products_read' },
    }),
    externalProductId: t.string({ nullable: false, description: "The merchant's productId", resolve: (line) => line.externalProductId }),
    externalVariantId: t.exposeString('externalVariantId', { nullable: true }),
    imageUrl: t.exposeString('imageUrl', { nullable: true }),
    oversoldQuantity: t.exposeInt('oversoldQuantity', {
      nullable: false,
      description: 'Units of the line committed beyond what was available at its location (0 when stock covered it)',
    }),
    fulfillmentLocation: t.field({
      type: Location,
      nullable: true,
      description: 'Location fulfilling the line (null only for orders made before every store had a default location)',
      select: (_args, _ctx, nestedSelection) => ({ fulfillmentGroup: { select: { location: nestedSelection(true) } } }),
      resolve: (item) => item.fulfillmentGroup?.location ?? null,
    }),
    order: t.relation('order', { nullable: false }),
  }),
});

export const Order = builder.prismaNode('Order', {
  id: { field: 'id' },
  nullable: true,
  // node(id:) sees only the caller's store: another store's order is simply not found.
  findUnique: (id, ctx) => ({ id, storeId: storeIdOf(ctx) }),
  authScopes: (_order, ctx) => hasAnyScope(ctx, ORDER_AUDIENCE),
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'Human-facing order name, e.g. "#1001"' }),
    externalId: t.exposeString('externalId', { nullable: false, description: "The merchant's orderId" }),
    placedAt: t.expose('placedAt', { nullable: false, type: 'DateTime', description: 'createdAt of the creation request' }),
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 code' }),
    customer: t.relation('customer', {
      nullable: true,
      description: 'Our customer with the order e-mail, if one existed when the order was made',
    }),
    submittedCustomer: t.field({
      type: OrderCustomer,
      nullable: true,
      description: 'The customer as the merchant submitted it with the order',
      resolve: (order) => {
        const customer = {
          externalId: order.customerExternalId,
          email: order.customerEmail,
          phoneNumber: order.customerPhone,
          name: order.customerName,
          firstName: order.customerFirstName,
          lastName: order.customerLastName,
        };
        return Object.values(customer).some((value) => value !== null) ? customer : null;
      },
    }),
    lineItems: t.relation('lineItems', { nullable: false, query: { orderBy: { position: 'asc' } } }),
    totalPrice: t.field({ type: Money, nullable: true, resolve: (o) => money(o.totalPrice, o.currency) }),
    subtotalPrice: t.field({ type: Money, nullable: true, resolve: (o) => money(o.subtotalPrice, o.currency) }),
    totalTax: t.field({ type: Money, nullable: true, resolve: (o) => money(o.totalTax, o.currency) }),
    totalDiscount: t.field({ type: Money, nullable: true, resolve: (o) => money(o.totalDiscount, o.currency) }),
    shippingMethod: t.exposeString('shippingMethod', { nullable: true }),
    shippingCost: t.field({ type: Money, nullable: true, resolve: (o) => money(o.shippingCost, o.currency) }),
    shippingAddress: t.field({ type: OrderAddress, nullable: true, resolve: (o) => o.shippingAddress as AddressShape | null }),
    billingAddress: t.field({ type: OrderAddress, nullable: true, resolve: (o) => o.billingAddress as AddressShape | null }),
    fulfillmentLocation: t.field({
      type: Location,
      nullable: true,
      description: "Location the order is fulfilled from and commits stock at: its locationId, else the store's default location",
      select: (_args, _ctx, nestedSelection) => ({
        fulfillmentGroups: { select: { location: nestedSelection(true) }, orderBy: { createdAt: 'asc' }, take: 1 },
      }),
      resolve: (o) => o.fulfillmentGroups[0]?.location ?? null,
    }),
    tags: t.exposeStringList('tags', { nullable: false }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  order: t.prismaField({
    type: 'Order',
    nullable: true,
    description: 'An order of the store by our id (ord_); null when absent',
    authScopes: { scope: 'orders_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.reads.order.findFirst({ ...query, where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  orderByExternalId: t.prismaField({
    type: 'Order',
    nullable: true,
    description: "An order of the store by the merchant's orderId; null when absent",
    authScopes: { scope: 'orders_read' },
    args: { externalId: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) =>
      ctx.reads.order.findUnique({ ...query, where: { storeId_externalId: { storeId: storeIdOf(ctx), externalId: args.externalId } } }),
  }),
}));

export const OrderAddressInput = builder.inputType('OrderAddressInput', {
  fields: (t) => ({
    address1: t.string({ required: false }),
    address2: t.string({ required: false }),
    city: t.string({ required: false }),
    province: t.string({ required: false }),
    country: t.string({ required: false }),
    postalCode: t.string({ required: false }),
  }),
});

type InputFieldBuilder = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

/** The fields an order line has in every input that carries one (creation and sync). */
export function orderLineInputFields(t: InputFieldBuilder) {
  return {
    id: t.string({ required: true, description: "The merchant's line item id, unique in the order" }),
    productId: t.string({ required: true, description: "The merchant's product id; matches our product when it is our prd_ id" }),
    title: t.string({ required: true }),
    quantity: t.int({ required: true, description: '1 to 1000' }),
    variantId: t.string({ required: false }),
    sku: t.string({ required: false, description: "Matches the store's product with this sku when productId does not" }),
    price: t.field({ type: 'Decimal', required: false, description: '>= 0, in the order currency' }),
    imageUrl: t.string({ required: false }),
  };
}

const OrderLineItemInput = builder.inputType('OrderLineItemInput', {
  fields: (t) => ({
    ...orderLineInputFields(t),
    discount: t.field({ type: 'Decimal', required: false, description: '>= 0, in the order currency' }),
  }),
});

export const OrderCustomerInput = builder.inputType('OrderCustomerInput', {
  fields: (t) => ({
    id: t.string({ required: false, description: "The merchant's customer id" }),
    email: t.string({ required: false }),
    phoneNumber: t.string({ required: false }),
    name: t.string({ required: false }),
    firstName: t.string({ required: false }),
    lastName: t.string({ required: false }),
  }),
});

const OrderShippingInput = builder.inputType('OrderShippingInput', {
  fields: (t) => ({
    method: t.string({ required: false }),
    cost: t.field({ type: 'Decimal', required: false, description: '>= 0' }),
    address: t.field({ type: OrderAddressInput, required: false }),
  }),
});

const OrderInput = builder.inputType('OrderInput', {
  description: 'Order creation (spec 2.4); amounts are decimal amounts in the order currency, >= 0',
  fields: (t) => ({
    orderId: t.string({ required: true, description: "The merchant's order id, unique in the store" }),
    createdAt: t.field({ type: 'DateTime', required: true }),
    lineItems: t.field({ type: [OrderLineItemInput], required: true, description: 'At least one' }),
    customer: t.field({ type: OrderCustomerInput, required: false }),
    shipping: t.field({ type: OrderShippingInput, required: false }),
    totalPrice: t.field({ type: 'Decimal', required: false }),
    subtotalPrice: t.field({ type: 'Decimal', required: false }),
    totalTax: t.field({ type: 'Decimal', required: false }),
    totalDiscount: t.field({ type: 'Decimal', required: false }),
    billingAddress: t.field({ type: OrderAddressInput, required: false }),
    tags: t.stringList({ required: false }),
    currency: t.string({ required: false, description: 'ISO 4217, as Money.currency; the store currency when omitted' }),
    locationId: t.id({
      required: false,
      description: "Fulfillment location (loc_): the store's own or a linked fulfillment service's; the store's default location when omitted",
    }),
  }),
});

builder.mutationField('createOrder', (t) =>
  t.field({
    type: Order,
    nullable: false,
    description: 'Creates an order, commits stock at its fulfillment location and records order.created',
    authScopes: { scope: 'orders_write' },
    args: { input: t.arg({ type: OrderInput, required: true }) },
    resolve: async (_root, { input }, ctx) => toPlain(await createOrder(ctx.prisma, storeIdOf(ctx), { ...input, locationId: input.locationId?.toString() })),
  }),
);

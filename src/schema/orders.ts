// Orders: the Order and OrderLineItem types (also reached from returns), the order
// lookups, and the orderCreate mutation. Rules live in domain/orders.ts.
import type { Scope } from '../auth/scopes.ts';
import {
  createOrder,
  findShopperOrder,
  importOrders,
  MAX_IMPORTED_ORDERS,
  type ImportedOrderResult as ImportedOrderResultValue,
  FULFILLMENT_STATE_SELECT,
  fulfillmentStateOf,
  unitsOrderedOf,
  type OrderAddressInput as AddressInput,
  type OrderFulfillmentState as OrderFulfillmentStateValue,
} from '../domain/orders.ts';
import { builder } from './builder.ts';
import { hasAnyScope, storeIdOf } from './context.ts';
import { money, Money } from './scalars.ts';
import { Location } from './inventory.ts';
import type { MutationFieldBuilder } from './node.ts';
import { toPlain, type Plain } from '../db/reads/plain.ts';
import type { Order as OrderRow } from '../generated/prisma/client.ts';
import { UserError, withUserErrors, type UserErrorShape } from './userErrors.ts';

// Order readers: order clients, and return clients (a return shows the order it belongs to).
const ORDER_AUDIENCE: readonly Scope[] = ['orders_read', 'orders_write', 'returns_read', 'returns_write'];

/** The stored address JSON has the shape of the creation input's address. */
type AddressShape = AddressInput;

export const OrderAddress = builder.objectRef<AddressShape>('OrderAddress').implement({
  description: 'Shipping or billing address of an order',
  fields: (t) => ({
    address1: t.string({ nullable: true, description: 'First street line; null when not submitted', resolve: (a) => a.address1 ?? null }),
    address2: t.string({ nullable: true, description: 'Second street line; null when not submitted', resolve: (a) => a.address2 ?? null }),
    city: t.string({ nullable: true, description: 'City or town; null when not submitted', resolve: (a) => a.city ?? null }),
    province: t.string({ nullable: true, description: 'State or province; null when not submitted', resolve: (a) => a.province ?? null }),
    country: t.string({ nullable: true, description: 'Country as submitted (free text); null when not submitted', resolve: (a) => a.country ?? null }),
    postalCode: t.string({ nullable: true, description: 'Postal or ZIP code; null when not submitted', resolve: (a) => a.postalCode ?? null }),
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
  description: 'The customer as the merchant submitted it with the order',
  fields: (t) => ({
    externalId: t.exposeString('externalId', { nullable: true, description: "The merchant's customer id" }),
    email: t.exposeString('email', { nullable: true, description: 'E-mail address, lower case; null when not submitted' }),
    phoneNumber: t.exposeString('phoneNumber', { nullable: true, description: 'Phone number as submitted; null when not submitted' }),
    name: t.exposeString('name', { nullable: true, description: 'Full name as submitted; null when not submitted' }),
    firstName: t.exposeString('firstName', { nullable: true, description: 'First name; null when not submitted' }),
    lastName: t.exposeString('lastName', { nullable: true, description: 'Last name; null when not submitted' }),
  }),
});

/** The columns of a line that load with every line: those nearly every selection of one reads. */
const LINE_COLUMNS = { id: true, externalId: true, position: true, title: true, quantity: true, sku: true, price: true, discount: true, externalProductId: true } as const;

export const OrderLineItem = builder.prismaObject('OrderLineItem', {
  // Select mode (builder.ts): a line is read under every order and every returned item, and
  // most of its columns (stock bookkeeping, image, variant) are rarely asked for.
  select: LINE_COLUMNS,
  description: 'One line of an order as submitted. Readable with orders_read, orders_write, returns_read or returns_write.',
  authScopes: (_item, ctx) => hasAnyScope(ctx, ORDER_AUDIENCE),
  fields: (t) => ({
    id: t.id({ nullable: false, description: 'Our order line id (oli_); returnCreate and fulfillmentCreate accept it as a line id', resolve: (line) => line.id }),
    externalId: t.string({ nullable: false, description: "The merchant's line item id", resolve: (line) => line.externalId }),
    position: t.int({ nullable: false, description: 'Index of the line in the order as submitted', resolve: (line) => line.position }),
    title: t.string({ nullable: false, description: 'Title of the line as submitted', resolve: (line) => line.title }),
    quantity: t.int({ nullable: false, description: 'Units ordered, 1 to 1000', resolve: (line) => line.quantity }),
    sku: t.string({ nullable: true, description: 'SKU as submitted; null when none was given', resolve: (line) => line.sku }),
    price: t.field({
      type: Money,
      nullable: true,
      description: "Price of one unit, in the order's currency; null when none was submitted",
      select: { order: { select: { currency: true } } },
      resolve: (item) => money(item.price, item.order.currency),
    }),
    discount: t.field({
      type: Money,
      nullable: true,
      description: "Discount on the whole line (all its units), in the order's currency; null when none was submitted",
      select: { order: { select: { currency: true } } },
      resolve: (item) => money(item.discount, item.order.currency),
    }),
    product: t.relation('product', {
      nullable: true,
      description: "Our product the line matched by the merchant's productId or sku, if any. Needs products_read (else FORBIDDEN).",
      authScopes: { scope: 'products_read' },
    }),
    externalProductId: t.string({ nullable: false, description: "The merchant's productId", resolve: (line) => line.externalProductId }),
    externalVariantId: t.exposeString('externalVariantId', { nullable: true, description: "The merchant's variantId; null when none was given" }),
    imageUrl: t.exposeString('imageUrl', { nullable: true, description: 'Image URL as submitted; null when none was given' }),
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
    order: t.relation('order', { nullable: false, description: 'The order the line belongs to' }),
  }),
});

export const Order = builder.prismaNode('Order', {
  id: { field: 'id', description: 'Our order id (ord_)' },
  nullable: true,
  description:
    "An order the merchant's system submitted (orderCreate or orderSync); amounts are in its currency. " +
    "Readable with orders_read, orders_write, returns_read or returns_write; another store's order is never found.",
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
    lineItems: t.relation('lineItems', { nullable: false, description: 'The lines of the order, in the order they were submitted', query: { orderBy: { position: 'asc' } } }),
    totalPrice: t.field({
      type: Money,
      nullable: true,
      description: 'Total including tax and shipping, as submitted (derived from the parts for a synced order); null when not given',
      resolve: (o) => money(o.totalPrice, o.currency),
    }),
    subtotalPrice: t.field({
      type: Money,
      nullable: true,
      description: 'Subtotal excluding tax and shipping, as submitted (derived for a synced order); null when not given',
      resolve: (o) => money(o.subtotalPrice, o.currency),
    }),
    totalTax: t.field({
      type: Money,
      nullable: true,
      description: 'Total tax, as submitted (derived for a synced order); null when not given',
      resolve: (o) => money(o.totalTax, o.currency),
    }),
    totalDiscount: t.field({
      type: Money,
      nullable: true,
      description: 'Discounts applied (coupons, promotions), as submitted (derived for a synced order); null when not given',
      resolve: (o) => money(o.totalDiscount, o.currency),
    }),
    shippingMethod: t.exposeString('shippingMethod', {
      nullable: true,
      description: "Shipping method name as submitted (a synced order's shipping line titles, comma-separated); null when not given",
    }),
    shippingCost: t.field({
      type: Money,
      nullable: true,
      description: 'Shipping cost, as submitted (derived from the shipping lines for a synced order); null when not given',
      resolve: (o) => money(o.shippingCost, o.currency),
    }),
    shippingAddress: t.field({
      type: OrderAddress,
      nullable: true,
      description: 'Where the order ships to; null when not given',
      resolve: (o) => o.shippingAddress as AddressShape | null,
    }),
    billingAddress: t.field({
      type: OrderAddress,
      nullable: true,
      description: 'Billing address; null when not given',
      resolve: (o) => o.billingAddress as AddressShape | null,
    }),
    fulfillmentLocation: t.field({
      type: Location,
      nullable: true,
      description: "Location the order is fulfilled from and commits stock at: its locationId, else the store's default location",
      select: (_args, _ctx, nestedSelection) => ({
        fulfillmentGroups: { select: { location: nestedSelection(true) }, orderBy: { createdAt: 'asc' }, take: 1 },
      }),
      resolve: (o) => o.fulfillmentGroups[0]?.location ?? null,
    }),
    tags: t.exposeStringList('tags', { nullable: false, description: 'Tags as submitted (trimmed, duplicates dropped); empty when none' }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When this service recorded the order (placedAt is when it was placed)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When the order last changed, e.g. by a sync' }),
  }),
});

builder.queryFields((t) => ({
  order: t.prismaField({
    type: 'Order',
    nullable: true,
    description: 'An order of the store by our id (ord_); null when the store has none with it. Needs orders_read.',
    authScopes: { scope: 'orders_read' },
    args: { id: t.arg.id({ required: true, description: 'Our order id (ord_)' }) },
    resolve: (query, _root, args, ctx) => ctx.reads.order.findFirst({ ...query, where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  orderByExternalId: t.prismaField({
    type: 'Order',
    nullable: true,
    description: "An order of the store by the merchant's orderId; null when the store has none with it. Needs orders_read.",
    authScopes: { scope: 'orders_read' },
    args: { externalId: t.arg.string({ required: true, description: "The merchant's orderId, exactly as submitted" }) },
    resolve: (query, _root, args, ctx) =>
      ctx.reads.order.findUnique({ ...query, where: { storeId_externalId: { storeId: storeIdOf(ctx), externalId: args.externalId } } }),
  }),
  shopperOrder: t.prismaField({
    type: 'Order',
    nullable: true,
    description:
      'The order a shopper names by its name and the e-mail it was placed with (any case), as the returns portal looks one up; null when ' +
      'the store has no order with both, the same answer for an unknown name and a wrong e-mail. An erased order matches no e-mail: ' +
      'where its e-mail was it reads "[redacted]", which is nobody\'s. Needs orders_read.',
    authScopes: { scope: 'orders_read' },
    args: {
      name: t.arg.string({ required: true, description: 'The order name, e.g. "#1001"' }),
      email: t.arg.string({ required: true, description: 'The e-mail the shopper typed, any case' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const storeId = storeIdOf(ctx);
      const id = await findShopperOrder(ctx.prisma, storeId, args.name, args.email);
      return id === null ? null : ctx.reads.order.findUnique({ ...query, where: { id } });
    },
  }),
}));

export const OrderAddressInput = builder.inputType('OrderAddressInput', {
  description: 'Shipping or billing address of an order; every part optional, up to 255 characters, blank treated as absent',
  fields: (t) => ({
    address1: t.string({ required: false, description: 'First street line' }),
    address2: t.string({ required: false, description: 'Second street line (apartment, suite ...)' }),
    city: t.string({ required: false, description: 'City or town' }),
    province: t.string({ required: false, description: 'State or province' }),
    country: t.string({ required: false, description: 'Country (free text, stored as given)' }),
    postalCode: t.string({ required: false, description: 'Postal or ZIP code' }),
  }),
});

type InputFieldBuilder = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

/** The fields an order line has in every input that carries one (creation and sync). */
export function orderLineInputFields(t: InputFieldBuilder) {
  return {
    id: t.string({ required: true, description: "The merchant's line item id, unique in the order" }),
    productId: t.string({ required: true, description: "The merchant's product id; matches our product when it is our prd_ id" }),
    title: t.string({ required: true, description: 'Title of the line, 1 to 1000 characters' }),
    quantity: t.int({ required: true, description: '1 to 1000' }),
    variantId: t.string({ required: false, description: "The merchant's variant id, up to 255 characters" }),
    sku: t.string({ required: false, description: "Matches the store's product with this sku when productId does not" }),
    price: t.field({ type: 'Decimal', required: false, description: 'Price of one unit: >= 0, in the order currency' }),
    imageUrl: t.string({ required: false, description: 'URL of an image of the item, up to 2048 characters' }),
  };
}

const OrderLineItemInput = builder.inputType('OrderLineItemInput', {
  description: 'One line of a new order; its id must be unique in the order',
  fields: (t) => ({
    ...orderLineInputFields(t),
    discount: t.field({ type: 'Decimal', required: false, description: 'Discount on the whole line (all its units): >= 0, in the order currency' }),
  }),
});

export const OrderCustomerInput = builder.inputType('OrderCustomerInput', {
  description: "The customer as the merchant's system has it; every part optional, up to 255 characters unless stated otherwise",
  fields: (t) => ({
    id: t.string({ required: false, description: "The merchant's customer id" }),
    email: t.string({
      required: false,
      description: "A valid e-mail address, stored lower case; links the order to the store's customer with this e-mail, if any",
    }),
    phoneNumber: t.string({ required: false, description: 'Phone number, up to 32 characters' }),
    name: t.string({ required: false, description: 'Full name' }),
    firstName: t.string({ required: false, description: 'First name' }),
    lastName: t.string({ required: false, description: 'Last name' }),
  }),
});

const OrderShippingInput = builder.inputType('OrderShippingInput', {
  description: 'How the order ships',
  fields: (t) => ({
    method: t.string({ required: false, description: 'Name of the shipping method, up to 255 characters' }),
    cost: t.field({ type: 'Decimal', required: false, description: '>= 0' }),
    address: t.field({ type: OrderAddressInput, required: false, description: 'Where the order ships to' }),
  }),
});

const OrderInput = builder.inputType('OrderInput', {
  description: 'Order creation; amounts are decimal amounts in the order currency, >= 0',
  fields: (t) => ({
    orderId: t.string({ required: true, description: "The merchant's order id, unique in the store" }),
    createdAt: t.field({ type: 'DateTime', required: true, description: "When the merchant's system created the order; becomes Order.placedAt" }),
    lineItems: t.field({ type: [OrderLineItemInput], required: true, description: 'At least one' }),
    customer: t.field({ type: OrderCustomerInput, required: false, description: 'Who placed the order' }),
    shipping: t.field({ type: OrderShippingInput, required: false, description: 'Shipping method, cost and address' }),
    totalPrice: t.field({ type: 'Decimal', required: false, description: 'Total including tax and shipping' }),
    subtotalPrice: t.field({ type: 'Decimal', required: false, description: 'Subtotal excluding tax and shipping' }),
    totalTax: t.field({ type: 'Decimal', required: false, description: 'Total tax' }),
    totalDiscount: t.field({ type: 'Decimal', required: false, description: 'Discounts applied (coupons, promotions)' }),
    billingAddress: t.field({ type: OrderAddressInput, required: false, description: 'Billing address' }),
    tags: t.stringList({ required: false, description: 'Up to 250 tags of 1 to 255 characters each; trimmed, duplicates dropped' }),
    currency: t.string({ required: false, description: 'ISO 4217, as Money.currency; the store currency when omitted' }),
    locationId: t.id({
      required: false,
      description: "Fulfillment location (loc_): the store's own or a linked fulfillment service's; the store's default location when omitted",
    }),
  }),
});

/** orderCreate, and createOrder: its deprecated old name (`deprecationReason`). */
function orderCreateField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.field({
    type: Order,
    nullable: false,
    description:
      "Creates an order submitted by the merchant's system, in one transaction: the order, its lines, its fulfillment group, " +
      'the stock its lines commit at the fulfillment location (units beyond what is available are recorded as oversold, never refused) ' +
      'and the order.created event. Needs orders_write. Errors: BAD_USER_INPUT for invalid input (every issue in extensions.issues; ' +
      "nothing written) or a locationId that is neither the store's nor a linked fulfillment service's; CONFLICT when the store already " +
      'has an order with this orderId.',
    deprecationReason,
    authScopes: { scope: 'orders_write' },
    args: {
      input: t.arg({
        type: OrderInput,
        required: true,
        description: 'The order: orderId unique in the store, createdAt, at least one line item (quantity 1 to 1000); amounts are decimal amounts in the order currency, >= 0',
      }),
    },
    resolve: async (_root, { input }, ctx) => toPlain(await createOrder(ctx.prisma, storeIdOf(ctx), { ...input, locationId: input.locationId?.toString() })),
  });
}

builder.mutationField('orderCreate', (t) => orderCreateField(t));
builder.mutationField('createOrder', (t) => orderCreateField(t, 'Use orderCreate'));

interface ImportedOrderShape {
  index: number;
  order: Plain<OrderRow> | null;
  userErrors: UserErrorShape[];
}

const ImportedOrderResult = builder.objectRef<ImportedOrderShape>('ImportedOrderResult').implement({
  description: 'What became of one order of ordersImport, in the request order',
  fields: (t) => ({
    index: t.exposeInt('index', { nullable: false, description: 'Position of the order in the request, from 0' }),
    order: t.field({ type: Order, nullable: true, description: 'The order written; null when it was refused', resolve: (r) => r.order }),
    userErrors: t.field({
      type: [UserError],
      nullable: false,
      description: 'Why this order was refused (nothing of it was written; fields are paths under `orders`); empty when it was written',
      resolve: (r) => r.userErrors,
    }),
  }),
});

/** One result as the schema shows it: a refusal's fields are paths of the `orders` argument, through its index. */
async function importedOrder(ctx: Parameters<typeof withUserErrors>[0]['ctx'], result: ImportedOrderResultValue, index: number): Promise<ImportedOrderShape> {
  if (result.status === 'created') return { index, order: toPlain(result.order), userErrors: [] };
  const { userErrors } = await withUserErrors({ ctx, input: 'orders' }, () => Promise.reject(result.error));
  return { index, order: null, userErrors: userErrors.map((e) => ({ ...e, field: ['orders', String(index), ...(e.field?.slice(1) ?? [])] })) };
}

builder.mutationField('ordersImport', (t) =>
  t.field({
    type: [ImportedOrderResult],
    nullable: false,
    description:
      `Imports 1 to ${MAX_IMPORTED_ORDERS} existing orders (an integration's sync, a platform's history). Each is validated and written as ` +
      'orderCreate would (its number, lines, fulfillment group and order.created event), in batches of 100 a transaction; a refused one ' +
      '(invalid input, an orderId the store has or that appears earlier in the request, an unknown location) is reported in its ' +
      'result while the others are written. Historical orders commit no stock unless commitStock is true (their lines still name our ' +
      'products). An Idempotency-Key makes a retried request answer the first one. Needs orders_write. Errors: BAD_USER_INPUT when the ' +
      `list holds fewer than 1 or more than ${MAX_IMPORTED_ORDERS} orders, or a value does not coerce (a bad DateTime or Decimal).`,
    authScopes: { scope: 'orders_write' },
    args: {
      orders: t.arg({ type: [OrderInput], required: true, description: `1 to ${MAX_IMPORTED_ORDERS} orders` }),
      commitStock: t.arg.boolean({ required: false, description: "Commit the lines' stock at the fulfillment location, as orderCreate does; false by default" }),
    },
    resolve: async (_root, args, ctx) => {
      const inputs = args.orders.map((input) => ({ ...input, locationId: input.locationId?.toString() }));
      const results = await importOrders(ctx.prisma, storeIdOf(ctx), inputs, { commitStock: args.commitStock ?? false });
      return Promise.all(results.map((result, index) => importedOrder(ctx, result, index)));
    },
  }),
);

// ---------------------------------------------------------------- what a list of orders shows

const OrderFulfillmentState = builder.enumType('OrderFulfillmentState', {
  description: "How far an order's units have been sent, counted over its fulfillments' lines",
  values: {
    UNFULFILLED: { value: 'unfulfilled', description: 'No unit has been sent' },
    PARTIALLY_FULFILLED: { value: 'partially_fulfilled', description: 'Some units have been sent, not all' },
    FULFILLED: { value: 'fulfilled', description: 'Every unit has been sent; some shipment is not delivered yet' },
    DELIVERED: { value: 'delivered', description: 'Every unit has been sent and every shipment delivered' },
  } as const satisfies Record<string, { value: OrderFulfillmentStateValue; description: string }>,
});

builder.prismaObjectFields('Order', (t) => ({
  unitsOrdered: t.int({
    nullable: false,
    description: 'Units ordered: the sum of the lines\' quantities (read with the order, in the same statement)',
    select: { lineItems: FULFILLMENT_STATE_SELECT.lineItems },
    resolve: unitsOrderedOf,
  }),
  fulfillmentState: t.field({
    type: OrderFulfillmentState,
    nullable: false,
    description: "How far the order's units have been sent (read with the order, in the same statement)",
    select: FULFILLMENT_STATE_SELECT,
    resolve: fulfillmentStateOf,
  }),
}));

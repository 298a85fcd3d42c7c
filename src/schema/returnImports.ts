// Importing returns created outside the service (returnsImport).
import { importReturns, type ImportedReturnResult } from '../domain/returns/imports.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import type { MutationFieldBuilder } from './node.ts';

const ImportedReturnItemInput = builder.inputType('ImportedReturnItemInput', {
  description: "Units of one of the store's products on an imported return; texts up to 255 characters unless stated otherwise",
  fields: (t) => ({
    productId: t.id({ required: true, description: 'Our product id (prd_), as productFamiliesBulkUpsert answers it; an unknown product fails this return' }),
    quantity: t.int({ required: true, description: 'Units returned, at least 1' }),
    sku: t.string({ description: "The product's SKU when omitted" }),
    barcode: t.string({ description: "The product's UPC or first barcode when omitted" }),
    productTitle: t.string({ description: "The product's title when omitted; up to 1000 characters" }),
    variantTitle: t.string({ description: 'Title of the variant, up to 1000 characters; kept as ReturnItem.variantTitle' }),
    reason: t.string({ description: "The customer's reason for returning" }),
    condition: t.string({ description: "The item's condition as the importing system states it; kept as ReturnItem.condition" }),
  }),
});

const ImportedReturnAddressInput = builder.inputType('ImportedReturnAddressInput', {
  description: 'A postal address of an imported return; texts up to 255 characters unless stated otherwise',
  fields: (t) => ({
    name: t.string({ description: 'Name of the person or business at the address' }),
    line1: t.string({ required: true, description: 'First street line; must not be blank' }),
    line2: t.string({ description: 'Second street line (apartment, suite ...)' }),
    city: t.string({ required: true, description: 'City or town; must not be blank' }),
    state: t.string({ description: 'State or province' }),
    postalCode: t.string({ description: 'Postal or ZIP code, up to 32 characters' }),
    country: t.string({ required: true, description: 'ISO 3166-1 alpha-2' }),
    phone: t.string({ description: 'Phone number, up to 32 characters' }),
  }),
});

const ImportedReturnCustomerInput = builder.inputType('ImportedReturnCustomerInput', {
  description: 'The customer an imported return names; each part up to 255 characters',
  fields: (t) => ({
    firstName: t.string({ description: 'Becomes Return.customerFirstName' }),
    lastName: t.string({ description: 'Becomes Return.customerLastName' }),
    email: t.string({ description: 'A valid e-mail address, stored lower case as Return.customerEmail' }),
  }),
});

const ImportReturnInput = builder.inputType('ImportReturnInput', {
  description: 'One return created outside this service, without an order; a problem with it fails only this return (see ImportedReturnResult.error)',
  fields: (t) => ({
    items: t.field({ type: [ImportedReturnItemInput], required: true, description: 'At least one and at most 250' }),
    customer: t.field({ type: ImportedReturnCustomerInput, description: 'The customer returning the items' }),
    externalReferenceId: t.string({ description: "The merchant's own return/RMA id" }),
    trackingNumber: t.string({ description: 'Tracking number of the return shipment, up to 255 characters' }),
    carrier: t.string({ description: 'Carrier of the return shipment, up to 255 characters' }),
    notes: t.string({ description: "The return's first note" }),
    idempotencyKey: t.string({ description: 'A retry with the same key answers the return already made' }),
    currency: t.string({ description: 'ISO 4217; USD when omitted' }),
    shippingAddress: t.field({ type: ImportedReturnAddressInput, description: 'Where the customer ships the return from' }),
    merchantAddress: t.field({ type: ImportedReturnAddressInput, description: "Where the return goes; the store's default location when omitted" }),
  }),
});

const ImportedReturnResult = builder.objectRef<ImportedReturnResult>('ImportedReturnResult').implement({
  description: 'What became of one imported return, in the request order',
  fields: (t) => ({
    returnId: t.id({
      nullable: true,
      description: 'svc_id of the return made (or of the one an earlier import with the same idempotency key made); null when this return failed',
      resolve: (r) => (r.status === 'created' ? r.returnId : null),
    }),
    replayed: t.boolean({ nullable: false, description: 'True when the idempotency key answered an earlier import', resolve: (r) => r.status === 'created' && r.replayed }),
    error: t.string({
      nullable: true,
      description: 'Why this return was not imported (an invalid value, an unknown product, an idempotency key used with another request); null on success',
      resolve: (r) => (r.status === 'error' ? r.error : null),
    }),
  }),
});

/** returnsImport, and importReturns: its deprecated old name (`deprecationReason`). */
function returnsImportField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.field({
    type: [ImportedReturnResult],
    nullable: false,
    description:
      'Imports 1 to 100 returns created outside the service (a warehouse scan, an ERP ...): no order, items naming products of the store. ' +
      'Each is created (status OPEN, with the return.created event) in its own transaction with its own result, in request order, so a ' +
      'refused one (its error: invalid values, an unknown product) leaves the others; its idempotencyKey makes a retry answer the return ' +
      'already made (replayed). Needs returns_write. Errors: BAD_USER_INPUT when the list holds fewer than 1 or more than 100 returns.',
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: {
      returns: t.arg({ type: [ImportReturnInput], required: true, description: '1 to 100 returns, each with 1 to 250 items' }),
    },
    resolve: (_root, args, ctx) =>
      importReturns(
        ctx.prisma,
        storeIdOf(ctx),
        args.returns.map((input) => ({ ...input, items: input.items.map((item) => ({ ...item, productId: String(item.productId) })) })),
      ),
  });
}

builder.mutationField('returnsImport', (t) => returnsImportField(t));
builder.mutationField('importReturns', (t) => returnsImportField(t, 'Use returnsImport'));

// The bulkUpsertProductFamilies mutation: many product families with their variants,
// created or updated one family at a time, one upload per store at once. Rules live in
// domain/productBulkUpload.ts.
import { bulkUpsertProductFamilies, type BulkFamilyResult } from '../domain/productBulkUpload.ts';
import { builder } from './builder.ts';
import { ProductKind } from './catalog.ts';
import { storeIdOf } from './context.ts';

const BulkImageInput = builder.inputType('BulkImageInput', {
  fields: (t) => ({ url: t.string({ required: true }), altText: t.string({ required: false }) }),
});

const BulkFamilyOptionInput = builder.inputType('BulkFamilyOptionInput', {
  fields: (t) => ({ name: t.string({ required: true }), values: t.stringList({ required: true }) }),
});

const BulkVariantInput = builder.inputType('BulkVariantInput', {
  fields: (t) => ({
    id: t.id({ required: false, description: 'Our product id (prd_): the first way a variant is matched' }),
    externalId: t.string({ required: false, description: "The variant's id in the merchant's system: the second way" }),
    title: t.string({ required: false, description: "The family's title when omitted" }),
    sku: t.string({ required: true, description: 'The third way a variant is matched' }),
    upc: t.string({ required: false }),
    barcodes: t.stringList({ required: false }),
    price: t.int({ required: true, description: "In the currency's minor unit (cents for USD)" }),
    currency: t.string({ required: true }),
    weight: t.float({ required: false }),
    weightUnit: t.string({ required: false, description: 'g, kg, lb, oz or t (kept as kilograms)' }),
    width: t.float({ required: false }),
    length: t.float({ required: false }),
    height: t.float({ required: false }),
    dimensionUnit: t.string({ required: false, description: 'in or cm' }),
    hsCode: t.string({ required: false }),
    originCountry: t.string({ required: false }),
    optionValues: t.stringList({ required: false, description: "One value per option of the family, in the options' order" }),
    images: t.field({ type: [BulkImageInput], required: false, description: "Replaces the variant's images" }),
  }),
});

const BulkProductFamilyInput = builder.inputType('BulkProductFamilyInput', {
  fields: (t) => ({
    productFamilyId: t.id({ required: false, description: 'Our product family id (pfm_): the first way a family is matched' }),
    externalId: t.string({ required: false, description: "The family's id in the merchant's system: the second way (then its variants' SKUs)" }),
    title: t.string({ required: true }),
    description: t.string({ required: false }),
    vendor: t.string({ required: false }),
    tags: t.stringList({ required: false }),
    kind: t.field({ type: ProductKind, required: false, description: 'Default SELLABLE' }),
    options: t.field({ type: [BulkFamilyOptionInput], required: false, description: "Replaces the family's options" }),
    images: t.field({ type: [BulkImageInput], required: false, description: "Replaces the family's images" }),
    variants: t.field({ type: [BulkVariantInput], required: true, description: '1 to 100' }),
  }),
});

const BulkUploadStatus = builder.enumType('BulkUploadStatus', { values: ['CREATED', 'UPDATED', 'ERROR'] as const });

const BulkUploadedProduct = builder.objectRef<{ id: string; sku: string }>('BulkUploadedProduct').implement({
  fields: (t) => ({ id: t.exposeID('id', { nullable: false }), sku: t.exposeString('sku', { nullable: false }) }),
});

const BulkProductFamilyResult = builder.objectRef<BulkFamilyResult>('BulkProductFamilyResult').implement({
  description: 'What became of one family of the upload, in the request order',
  fields: (t) => ({
    status: t.field({ type: BulkUploadStatus, nullable: false, resolve: (r) => (r.status === 'created' ? 'CREATED' : r.status === 'updated' ? 'UPDATED' : 'ERROR') }),
    productFamilyId: t.id({ nullable: true, resolve: (r) => (r.status === 'error' ? null : r.productFamilyId) }),
    products: t.field({ type: [BulkUploadedProduct], nullable: false, resolve: (r) => (r.status === 'error' ? [] : r.products) }),
    error: t.string({ nullable: true, resolve: (r) => (r.status === 'error' ? r.error : null) }),
  }),
});

builder.mutationField('bulkUpsertProductFamilies', (t) =>
  t.field({
    type: [BulkProductFamilyResult],
    nullable: false,
    description:
      'Creates or updates up to 1000 product families of up to 100 variants, each family atomically, one result per family. ' +
      'Only one upload runs per store at a time: another one meanwhile is refused (CONFLICT).',
    authScopes: { scope: 'products_write' },
    args: { families: t.arg({ type: [BulkProductFamilyInput], required: true }) },
    resolve: (_root, { families }, ctx) =>
      bulkUpsertProductFamilies(
        ctx.prisma,
        storeIdOf(ctx),
        families.map((family) => ({
          ...family,
          productFamilyId: family.productFamilyId == null ? null : String(family.productFamilyId),
          variants: family.variants.map((variant) => ({ ...variant, id: variant.id == null ? null : String(variant.id) })),
        })),
      ),
  }),
);

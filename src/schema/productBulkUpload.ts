// The productFamiliesBulkUpsert mutation: many product families with their variants,
// created or updated one family at a time, one upload per store at once. Rules live in
// domain/productBulkUpload.ts.
import { bulkUpsertProductFamilies, MAX_FAMILIES, MAX_VARIANTS, type BulkFamilyResult } from '../domain/productBulkUpload.ts';
import { builder } from './builder.ts';
import { ProductKind } from './catalog.ts';
import { storeIdOf } from './context.ts';
import type { MutationFieldBuilder } from './node.ts';

const BulkImageInput = builder.inputType('BulkImageInput', {
  description: 'An image by URL; the list it is in replaces the images in that order.',
  fields: (t) => ({
    url: t.string({ required: true, description: 'http or https URL of the image, up to 2048 characters' }),
    altText: t.string({ required: false, description: 'Alternative text, up to 1000 characters; empty when omitted' }),
  }),
});

const BulkFamilyOptionInput = builder.inputType('BulkFamilyOptionInput', {
  description: 'An option of a family (e.g. Size) with its allowed values.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Option name, 1 to 100 characters, unique in the family (ignoring case)' }),
    values: t.stringList({ required: true, description: 'Allowed values in display order: 1 to 100, each up to 255 characters' }),
  }),
});

const BulkVariantInput = builder.inputType('BulkVariantInput', {
  description: 'One variant (a product) of a family: matched by id, else externalId, else sku, or created.',
  fields: (t) => ({
    id: t.id({ required: false, description: 'Our product id (prd_): the first way a variant is matched' }),
    externalId: t.string({ required: false, description: "The variant's id in the merchant's system: the second way" }),
    title: t.string({ required: false, description: "Up to 500 characters; the family's title when omitted" }),
    sku: t.string({ required: true, description: 'Stock keeping unit, up to 255 characters, unique in the store: the third way a variant is matched' }),
    upc: t.string({ required: false, description: 'UPC, up to 50 characters' }),
    barcodes: t.stringList({ required: false, description: 'Other barcodes, at most 250 of up to 255 characters; trimmed, repeats dropped' }),
    price: t.int({ required: true, description: "Selling price in the currency's minor unit (cents for USD), >= 0" }),
    currency: t.string({ required: true, description: 'ISO 4217 code of the price' }),
    weight: t.float({ required: false, description: 'Weight in weightUnit, >= 0; ignored without weightUnit' }),
    weightUnit: t.string({ required: false, description: 'g, kg, lb, oz or t (kept as kilograms)' }),
    width: t.float({ required: false, description: 'Width in dimensionUnit, >= 0' }),
    length: t.float({ required: false, description: 'Length in dimensionUnit, >= 0' }),
    height: t.float({ required: false, description: 'Height in dimensionUnit, >= 0' }),
    dimensionUnit: t.string({ required: false, description: 'in or cm' }),
    hsCode: t.string({ required: false, description: 'Harmonized System customs code, up to 50 characters' }),
    originCountry: t.string({ required: false, description: 'Country of origin, ISO 3166-1 alpha-2, e.g. "US"' }),
    optionValues: t.stringList({ required: false, description: "One value per option of the family, in the options' order" }),
    images: t.field({ type: [BulkImageInput], required: false, description: "Replaces the variant's images" }),
  }),
});

const BulkProductFamilyInput = builder.inputType('BulkProductFamilyInput', {
  description: "A product family with its variants: matched by productFamilyId, else externalId, else its variants' SKUs, or created.",
  fields: (t) => ({
    productFamilyId: t.id({ required: false, description: 'Our product family id (pfm_): the first way a family is matched' }),
    externalId: t.string({ required: false, description: "The family's id in the merchant's system: the second way (then its variants' SKUs)" }),
    title: t.string({ required: true, description: 'Title, 1 to 500 characters' }),
    description: t.string({ required: false, description: 'Description, trimmed; omitted means empty' }),
    vendor: t.string({ required: false, description: 'Vendor, up to 255 characters; also set on every variant' }),
    tags: t.stringList({ required: false, description: 'At most 250 tags of up to 255 characters; trimmed, repeats dropped; omitted means none' }),
    kind: t.field({ type: ProductKind, required: false, description: 'Default SELLABLE' }),
    options: t.field({ type: [BulkFamilyOptionInput], required: false, description: "Replaces the family's options" }),
    images: t.field({ type: [BulkImageInput], required: false, description: "Replaces the family's images" }),
    variants: t.field({ type: [BulkVariantInput], required: true, description: '1 to 100' }),
  }),
});

const BulkUploadStatus = builder.enumType('BulkUploadStatus', {
  description: 'What became of one family of an upload.',
  values: {
    CREATED: { description: 'No existing family matched: it was created' },
    UPDATED: { description: 'An existing family was updated' },
    ERROR: { description: 'The family was refused and left untouched; `error` says why' },
  } as const,
});

const BulkUploadedProduct = builder.objectRef<{ id: string; sku: string }>('BulkUploadedProduct').implement({
  description: 'A variant as written.',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Its product id (`prd_`)' }),
    sku: t.exposeString('sku', { nullable: false, description: 'Its SKU as stored (trimmed)' }),
  }),
});

const BulkProductFamilyResult = builder.objectRef<BulkFamilyResult>('BulkProductFamilyResult').implement({
  description: 'What became of one family of the upload, in the request order',
  fields: (t) => ({
    status: t.field({
      type: BulkUploadStatus,
      nullable: false,
      description: 'Created, updated or refused',
      resolve: (r) => (r.status === 'created' ? 'CREATED' : r.status === 'updated' ? 'UPDATED' : 'ERROR'),
    }),
    productFamilyId: t.id({ nullable: true, description: "The family's id (`pfm_`); null on ERROR", resolve: (r) => (r.status === 'error' ? null : r.productFamilyId) }),
    products: t.field({
      type: [BulkUploadedProduct],
      nullable: false,
      description: 'The variants written, in the request order; empty on ERROR',
      resolve: (r) => (r.status === 'error' ? [] : r.products),
    }),
    error: t.string({ nullable: true, description: 'Why the family was refused; null unless ERROR', resolve: (r) => (r.status === 'error' ? r.error : null) }),
  }),
});

/** productFamiliesBulkUpsert, and bulkUpsertProductFamilies: its deprecated old name (`deprecationReason`). */
function productFamiliesBulkUpsertField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.field({
    type: [BulkProductFamilyResult],
    nullable: false,
    description:
      `Creates or updates 1 to ${MAX_FAMILIES} product families of 1 to ${MAX_VARIANTS} variants each, in the request order. A family is ` +
      "matched by productFamilyId, else externalId, else its variants' SKUs, and created when nothing matches; a variant by id, else " +
      'externalId, else sku. Each family is written in its own transaction, so a refused family (status ERROR with its error; also a SKU ' +
      'repeated in the request) leaves the others written and itself untouched; one result per family. Needs products_write. Errors: ' +
      `BAD_USER_INPUT when the request lists fewer than 1 or more than ${MAX_FAMILIES} families or a family fewer than 1 or more than ` +
      `${MAX_VARIANTS} variants (nothing written); CONFLICT when another upload of the store is running (one per store at a time).`,
    deprecationReason,
    authScopes: { scope: 'products_write' },
    args: {
      families: t.arg({
        type: [BulkProductFamilyInput],
        required: true,
        description: `1 to ${MAX_FAMILIES} product families, each with 1 to ${MAX_VARIANTS} variants; prices in the currency's minor unit`,
      }),
    },
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
  });
}

builder.mutationField('productFamiliesBulkUpsert', (t) => productFamiliesBulkUpsertField(t));
builder.mutationField('bulkUpsertProductFamilies', (t) => productFamiliesBulkUpsertField(t, 'Use productFamiliesBulkUpsert'));

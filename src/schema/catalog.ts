// The catalogue in v3: Product, ProductFamily and its options,
// Attribute, images, Dimensions and Weight; root lookups and lists; the mutations
// of inventory apps (products_write). Rules live in domain/catalog.ts.
import DataLoader from 'dataloader';
import type { Attribute as AttributeRow, Prisma, Product as ProductRow } from '../generated/prisma/client.ts';
import * as catalog from '../domain/catalog.ts';
import { searchHelp, searchWhere } from '../domain/search/kinds.ts';
import type { Plain } from '../db/reads/plain.ts';
import { builder } from './builder.ts';
import { perRequest, storeIdOf, type GraphQLContext } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { connectionNodeQuery, fieldQuery, keysetSortOf, registerNode, type SortKeyDefinition } from './node.ts';
import { money, Money } from './scalars.ts';
import { payloadType, UserError, withUserErrors, type UserErrorShape } from './userErrors.ts';

// ---------------------------------------------------------------- enums and value objects

export const AttributeType = builder.enumType('AttributeType', {
  description: "What an attribute holds; it fixes the JSON shape of the attribute's values",
  values: {
    SHORT_TEXT: { description: 'A string of at most 255 characters' },
    LONG_TEXT: { description: 'A string of at most 65,535 characters' },
    NUMBER: { description: 'A JSON number' },
    BOOLEAN: { description: 'true or false' },
    DATE: { description: 'A calendar date string, YYYY-MM-DD' },
    URL: { description: 'An http or https address string, at most 2048 characters' },
    WEIGHT: { description: 'An object {value, unit}: value a number >= 0, unit one of G, KG, LB, OZ (see WeightUnit)' },
    DIMENSIONS: { description: 'An object {length, width, height, unit}: each side a number >= 0 or null, unit IN or CM (see DimensionUnit)' },
    MONEY: {
      description:
        'An object {amount, currency}: amount a decimal string >= 0 with at most 4 decimals (a JSON number is accepted on input), currency an upper-case ISO 4217 code',
    },
  } as const,
});
export const DimensionUnit = builder.enumType('DimensionUnit', {
  description: 'Unit of length of dimensions; values are stored in the unit given, never converted',
  values: { IN: { description: 'Inches' }, CM: { description: 'Centimetres' } } as const,
});
export const WeightUnit = builder.enumType('WeightUnit', {
  description: 'Unit of weight; values are stored in the unit given, never converted',
  values: {
    G: { description: 'Grams' },
    KG: { description: 'Kilograms' },
    LB: { description: 'Pounds (avoirdupois, 453.59237 g)' },
    OZ: { description: 'Ounces (avoirdupois, 28.349523125 g)' },
  } as const,
});

interface DimensionsShape {
  length: number | null;
  width: number | null;
  height: number | null;
  unit: 'IN' | 'CM';
}

export const Dimensions = builder.objectRef<DimensionsShape>('Dimensions').implement({
  description: "A product's length, width and height, all in one unit",
  fields: (t) => ({
    length: t.exposeFloat('length', { nullable: true, description: 'Length in `unit` (>= 0); null when not given' }),
    width: t.exposeFloat('width', { nullable: true, description: 'Width in `unit` (>= 0); null when not given' }),
    height: t.exposeFloat('height', { nullable: true, description: 'Height in `unit` (>= 0); null when not given' }),
    unit: t.field({ nullable: false, type: DimensionUnit, description: 'Unit of length, width and height: IN or CM', resolve: (d) => d.unit }),
  }),
});

interface WeightShape {
  value: number;
  unit: 'G' | 'KG' | 'LB' | 'OZ';
}

export const Weight = builder.objectRef<WeightShape>('Weight').implement({
  description: "A product's weight with its unit",
  fields: (t) => ({
    value: t.exposeFloat('value', { nullable: false, description: 'Weight in `unit` (>= 0)' }),
    unit: t.field({ nullable: false, type: WeightUnit, description: 'Unit of `value`: G, KG, LB or OZ', resolve: (w) => w.unit }),
  }),
});

const MEASURES = { length: true, width: true, height: true, dimensionUnit: true, weightValue: true, weightUnit: true } as const;

type Measured = Pick<ProductRow, keyof typeof MEASURES>;

function dimensionsOf(product: Measured): DimensionsShape | null {
  if (!product.dimensionUnit) return null;
  return { length: product.length, width: product.width, height: product.height, unit: product.dimensionUnit };
}

function weightOf(product: Measured): WeightShape | null {
  if (product.weightValue === null || !product.weightUnit) return null;
  return { value: product.weightValue, unit: product.weightUnit };
}

export const ProductOptionValue = builder.objectRef<{ name: string; value: string }>('ProductOptionValue').implement({
  description: "A variant's value for one option of its family",
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'Name of the family\'s option, e.g. "Size"' }),
    value: t.exposeString('value', { nullable: false, description: 'This variant\'s value, one of the option\'s values, e.g. "M"' }),
  }),
});

// ---------------------------------------------------------------- attributes

type AttributeShape = Plain<AttributeRow> & { value: Prisma.JsonValue | null };

export const Attribute = builder.objectRef<AttributeShape>('Attribute').implement({
  description: 'A merchant-defined attribute and, where it was reached from a product or family, its value there',
  fields: (t) => ({
    name: t.exposeString('name', {
      nullable: false,
      description: 'Machine name, unique within the account: a lower-case letter, then lower-case letters, digits or _ (at most 64); never changes',
    }),
    displayName: t.exposeString('displayName', { nullable: false, description: 'Human-readable name, 1-255 characters' }),
    description: t.exposeString('description', { nullable: true, description: 'Help text, at most 2000 characters; null when none' }),
    type: t.field({ nullable: false, type: AttributeType, description: 'What the values hold; fixed at creation', resolve: (a) => a.type }),
    value: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The value on the product or family this was read from, shaped by `type` (see AttributeType); null when unset, and always null from `attributes`, `node` and mutations',
      resolve: (a) => a.value,
    }),
  }),
});

registerNode(Attribute, {
  scope: 'products_read',
  idDescription: 'Attribute id, prefix atr_ (node(id:) needs products_read)',
  load: async (id, ctx) => {
    const attribute = await ctx.reads.attribute.findFirst({ where: { id, storeId: storeIdOf(ctx) } });
    return attribute && { ...attribute, value: null };
  },
});

interface AttributeLookup {
  storeId: string;
  owner: { productId: string } | { familyId: string };
  name: string;
}

/** `attribute(name:)` of many products and families in one query per request tick. */
function attributeLoader(ctx: GraphQLContext) {
  return perRequest(
    ctx,
    attributeLoader,
    () =>
      new DataLoader<AttributeLookup, AttributeShape | null, string>(
        async (lookups) => {
          const productIds = lookups.flatMap((l) => ('productId' in l.owner ? [l.owner.productId] : []));
          const familyIds = lookups.flatMap((l) => ('familyId' in l.owner ? [l.owner.familyId] : []));
          const attributes = await ctx.reads.attribute.findMany({
            where: { storeId: { in: [...new Set(lookups.map((l) => l.storeId))] }, name: { in: [...new Set(lookups.map((l) => l.name))] } },
            include: { values: { where: { OR: [{ productId: { in: productIds } }, { familyId: { in: familyIds } }] } } },
          });
          return lookups.map((lookup) => {
            const attribute = attributes.find((a) => a.storeId === lookup.storeId && a.name === lookup.name);
            if (!attribute) return null;
            const { values, ...row } = attribute;
            const found = values.find((v) => ('productId' in lookup.owner ? v.productId === lookup.owner.productId : v.familyId === lookup.owner.familyId));
            return { ...row, value: found?.value ?? null };
          });
        },
        { cacheKeyFn: (l) => `${l.storeId}/${'productId' in l.owner ? `p:${l.owner.productId}` : `f:${l.owner.familyId}`}/${l.name}` },
      ),
  );
}

const attributeValuesSelection = {
  attributes: { include: { attribute: true }, orderBy: { attribute: { name: 'asc' } } },
} as const satisfies Prisma.ProductSelect & Prisma.ProductFamilySelect;

function attributesOf(values: { value: Prisma.JsonValue; attribute: Plain<AttributeRow> }[]): AttributeShape[] {
  return values.map((v) => ({ ...v.attribute, value: v.value }));
}

// ---------------------------------------------------------------- images

const IMAGE_ORDER = [{ position: 'asc' }, { id: 'asc' }] as const satisfies Prisma.ProductImageOrderByWithRelationInput[];

export const ProductImage = builder.prismaObject('ProductImage', {
  description: 'An image of a product',
  fields: (t) => ({
    altText: t.exposeString('altText', { nullable: false, description: 'Alternative text, at most 512 characters; empty string when none' }),
    default: t.boolean({ nullable: false, description: 'True for the default image, the one at position 0', resolve: (image) => image.position === 0 }),
    position: t.exposeInt('position', { nullable: false, description: "0-based place in the product's images (0, 1, 2 ... without gaps); 0 is the default" }),
    url: t.exposeString('url', { nullable: false, description: 'http or https address of the image' }),
  }),
});

registerNode(ProductImage, {
  scope: 'products_read',
  idDescription: 'Image id, prefix img_ (node(id:) needs products_read)',
  load: (id, ctx, info) => ctx.reads.productImage.findFirst({ ...fieldQuery(ctx, info, 'ProductImage'), where: { id, product: { storeId: storeIdOf(ctx) } } }),
});

export const ProductFamilyImage = builder.prismaObject('ProductFamilyImage', {
  description: 'An image of a product family',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Image id, prefix img_; used by productFamilyImageUpdate and productFamilyImageDelete (node(id:) does not resolve it)' }),
    altText: t.exposeString('altText', { nullable: false, description: 'Alternative text, at most 512 characters; empty string when none' }),
    default: t.boolean({ nullable: false, description: 'True for the default image, the one at position 0', resolve: (image) => image.position === 0 }),
    position: t.exposeInt('position', { nullable: false, description: "0-based place in the family's images (0, 1, 2 ... without gaps); 0 is the default" }),
    url: t.exposeString('url', { nullable: false, description: 'http or https address of the image' }),
  }),
});

export const ProductImageConnection = builder.connectionObject({ type: ProductImage, name: 'ProductImageConnection' });
export const ProductFamilyImageConnection = builder.connectionObject({ type: ProductFamilyImage, name: 'ProductFamilyImageConnection' });

// ---------------------------------------------------------------- products

export const Product = builder.prismaObject('Product', {
  description: "A product of the store's catalogue: one variant with one SKU, standalone or a variant of a product family",
  // Select mode (builder.ts): the title loads with every product, the id only for fields that read it.
  select: { id: false, title: true },
  fields: (t) => ({
    title: t.string({ nullable: false, description: 'Name of the product, 1-255 characters', resolve: (p) => p.title }),
    description: t.exposeString('description', { nullable: false, description: 'Free-text description; empty string when none' }),
    sku: t.exposeString('sku', { nullable: true, description: "Stock keeping unit, at most 100 characters, unique among the store's products; null when none" }),
    externalId: t.exposeString('externalId', { nullable: true, description: "The variant's id in the merchant's system (bulk upload)" }),
    upc: t.exposeString('upc', { nullable: true, description: 'Universal Product Code, at most 32 characters (its format is not checked); null when none' }),
    barcodes: t.exposeStringList('barcodes', { nullable: false, description: 'Further barcodes (EAN, ISBN ...), in the order given; empty when none' }),
    vendor: t.exposeString('vendor', { nullable: true, description: 'Maker or supplier; null when none' }),
    tags: t.exposeStringList('tags', { nullable: false, description: "The merchant's tags, in the order given; empty when none" }),
    hsCode: t.exposeString('hsCode', { nullable: true, description: 'Harmonized System customs tariff code, e.g. "6109.10" (at most 16 characters); null when unknown' }),
    originCountry: t.exposeString('originCountry', { nullable: true, description: 'Country of origin, ISO 3166-1 alpha-2 in upper case (e.g. "DE"); null when unknown' }),
    taxCode: t.exposeString('taxCode', { nullable: true, description: "Tax classification code for the merchant's tax service, as given (at most 64 characters); null when none" }),
    taxable: t.exposeBoolean('taxable', { nullable: false, description: 'Whether sales tax applies to the product (true unless set otherwise)' }),
    physicalItem: t.exposeBoolean('physicalItem', {
      nullable: false,
      description: 'Whether it is a physical item that is shipped; false for digital goods and services (true unless set otherwise)',
    }),
    cost: t.field({
      type: Money,
      nullable: true,
      description: "Merchant's unit cost, in the product's currency; null when unset",
      select: { cost: true, currency: true },
      resolve: (p) => money(p.cost, p.currency),
    }),
    price: t.field({
      type: Money,
      nullable: true,
      description: "Selling price per unit, in the product's currency; null when unset",
      select: { price: true, currency: true },
      resolve: (p) => money(p.price, p.currency),
    }),
    dimensions: t.field({ type: Dimensions, nullable: true, description: 'Length, width and height in IN or CM; null when unset', select: MEASURES, resolve: dimensionsOf }),
    weight: t.field({ type: Weight, nullable: true, description: 'Weight in G, KG, LB or OZ; null when unset', select: MEASURES, resolve: weightOf }),
    options: t.field({
      nullable: false,
      type: [ProductOptionValue],
      description: "The variant's value for each option of its family, in the family's option order; empty without a family",
      select: { options: { include: { option: true }, orderBy: { option: { position: 'asc' } } } },
      resolve: (p) => p.options.map((o) => ({ name: o.option.name, value: o.value })),
    }),
    attributes: t.field({
      nullable: false,
      type: [Attribute],
      description: 'Every attribute with a value on this product, with that value, by machine name A-Z',
      select: attributeValuesSelection,
      resolve: (p) => attributesOf(p.attributes),
    }),
    attribute: t.field({
      type: Attribute,
      nullable: true,
      description: 'The attribute with this machine name and its value here; null when the account has no such attribute',
      args: { name: t.arg.string({ required: true, description: 'Machine name of the attribute, e.g. "material"' }) },
      select: { id: true, storeId: true },
      resolve: (p, args, ctx) => attributeLoader(ctx).load({ storeId: p.storeId, owner: { productId: p.id }, name: args.name }),
    }),
    image: t.field({
      type: ProductImage,
      nullable: true,
      description: 'First (default, position 0) image; null when the product has none. Requires products_read',
      authScopes: { scope: 'products_read' },
      select: (_args, _ctx, nestedSelection) => ({ images: nestedSelection({ orderBy: IMAGE_ORDER, take: 1 }) }),
      resolve: (p) => p.images[0] ?? null,
    }),
    images: t.relatedConnection(
      'images',
      {
        nullable: false,
        cursor: 'id',
        description: 'Images in display order (position 0 first). Requires products_read',
        authScopes: { scope: 'products_read' },
        query: { orderBy: IMAGE_ORDER },
      },
      ProductImageConnection,
    ),
    productFamily: t.relation('family', {
      nullable: true,
      description: 'The family this product is a variant of; null for a standalone product. Requires products_read',
      authScopes: { scope: 'products_read' },
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the product was created (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When the product was last changed (ISO 8601, UTC); stock changes do not count' }),
  }),
});

registerNode(Product, {
  scope: 'products_read',
  idDescription: 'Product id, prefix prd_ (node(id:) needs products_read)',
  load: (id, ctx, info) => ctx.reads.product.findFirst({ ...fieldQuery(ctx, info, 'Product'), where: { id, storeId: storeIdOf(ctx) } }),
});

/** The fulfillment view of a product: what a warehouse needs to handle it, readable by anyone who sees its stock. */
export const InventoryProduct = builder.prismaObject('Product', {
  variant: 'InventoryProduct',
  description:
    'The fulfillment view of a product: what a warehouse needs to identify and handle it, readable by anyone who can see one of its inventory levels',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Product id, prefix prd_' }),
    title: t.exposeString('title', { nullable: false, description: 'Name of the product' }),
    sku: t.exposeString('sku', { nullable: true, description: 'Stock keeping unit; null when none' }),
    upc: t.exposeString('upc', { nullable: true, description: 'Universal Product Code; null when none' }),
    barcodes: t.exposeStringList('barcodes', { nullable: false, description: 'Further barcodes (EAN, ISBN ...); empty when none' }),
    weight: t.field({ type: Weight, nullable: true, description: 'Weight in G, KG, LB or OZ; null when unset', resolve: weightOf }),
    dimensions: t.field({ type: Dimensions, nullable: true, description: 'Length, width and height in IN or CM; null when unset', resolve: dimensionsOf }),
  }),
});

export const ProductConnection = builder.connectionObject({ type: Product, name: 'ProductConnection' });

// ---------------------------------------------------------------- families

export const ProductFamilyOption = builder.prismaObject('ProductFamilyOption', {
  description: 'An option of a product family (e.g. Size) with the values its variants choose from',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Option id, prefix pfo_' }),
    name: t.exposeString('name', { nullable: false, description: 'Option name, e.g. "Size"; 1-100 characters, unique within the family ignoring case' }),
    position: t.exposeInt('position', { nullable: false, description: "0-based place in the family's options" }),
    values: t.exposeStringList('values', { nullable: false, description: 'Allowed values, in display order (1-100 values of 1-255 characters)' }),
  }),
});

export const ProductKind = builder.enumType('ProductKind', {
  description: "Whether a family's products are for sale; recorded for the merchant, the service enforces nothing with it",
  values: {
    SELLABLE: { description: 'Sold to customers (the default)' },
    NON_SELLABLE: { description: 'Not sold to customers, e.g. packaging or components' },
  } as const,
});

export const ProductFamily = builder.prismaObject('ProductFamily', {
  description: 'A product family: a product sold in several variants, with the options (Size, Color ...) that tell the variants apart',
  fields: (t) => ({
    title: t.exposeString('title', { nullable: false, description: 'Name of the family, 1-255 characters' }),
    externalId: t.exposeString('externalId', { nullable: true, description: "The family's id in the merchant's system (bulk upload)" }),
    kind: t.expose('kind', { type: ProductKind, nullable: false, description: 'Whether its products are for sale; SELLABLE unless a bulk upload said otherwise' }),
    description: t.exposeString('description', { nullable: false, description: 'Free-text description; empty string when none' }),
    vendor: t.exposeString('vendor', { nullable: true, description: 'Maker or supplier; null when none' }),
    tags: t.exposeStringList('tags', { nullable: false, description: "The merchant's tags, in the order given; empty when none" }),
    options: t.relation('options', {
      nullable: false,
      description: 'Options in position order; each variant has one value for each',
      query: { orderBy: [{ position: 'asc' }, { id: 'asc' }] },
    }),
    attributes: t.field({
      nullable: false,
      type: [Attribute],
      description: 'Every attribute with a value on this family, with that value, by machine name A-Z',
      select: attributeValuesSelection,
      resolve: (f) => attributesOf(f.attributes),
    }),
    attribute: t.field({
      type: Attribute,
      nullable: true,
      description: 'The attribute with this machine name and its value here; null when the account has no such attribute',
      args: { name: t.arg.string({ required: true, description: 'Machine name of the attribute, e.g. "material"' }) },
      resolve: (f, args, ctx) => attributeLoader(ctx).load({ storeId: f.storeId, owner: { familyId: f.id }, name: args.name }),
    }),
    image: t.field({
      type: ProductFamilyImage,
      nullable: true,
      description: 'First (default, position 0) image; null when the family has none',
      select: (_args, _ctx, nestedSelection) => ({ images: nestedSelection({ orderBy: IMAGE_ORDER, take: 1 }) }),
      resolve: (f) => f.images[0] ?? null,
    }),
    images: t.relatedConnection(
      'images',
      { nullable: false, cursor: 'id', description: 'Images in display order (position 0 first)', query: { orderBy: IMAGE_ORDER } },
      ProductFamilyImageConnection,
    ),
    products: t.relatedConnection(
      'products',
      { nullable: false, cursor: 'id', description: 'The variants of the family, oldest first', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
      ProductConnection,
    ),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the family was created (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When the family was last changed (ISO 8601, UTC)' }),
  }),
});

registerNode(ProductFamily, {
  scope: 'products_read',
  idDescription: 'Product family id, prefix pfm_ (node(id:) needs products_read)',
  load: (id, ctx, info) => ctx.reads.productFamily.findFirst({ ...fieldQuery(ctx, info, 'ProductFamily'), where: { id, storeId: storeIdOf(ctx) } }),
});

export const ProductFamilyConnection = builder.connectionObject({ type: ProductFamily, name: 'ProductFamilyConnection' });
export const AttributeConnection = builder.connectionObject({ type: Attribute, name: 'AttributeConnection' });

// ---------------------------------------------------------------- root queries

const PRODUCT_SORT_KEYS = {
  CREATED_AT: { field: 'createdAt', kind: 'date' },
  UPDATED_AT: { field: 'updatedAt', kind: 'date' },
  TITLE: { field: 'title', kind: 'string' },
} as const satisfies Record<string, SortKeyDefinition>;

export const ProductSortKey = builder.enumType('ProductSortKey', {
  description: 'Order of products and product families: descending (newest, or Z first) unless `reverse`; ties by id',
  values: {
    CREATED_AT: { description: 'Creation time' },
    UPDATED_AT: { description: 'Time of the last change' },
    TITLE: { description: 'Title' },
  } as const satisfies Record<keyof typeof PRODUCT_SORT_KEYS, { description: string }>,
});

const ATTRIBUTE_SORT_KEYS = {
  CREATED_AT: { field: 'createdAt', kind: 'date' },
  NAME: { field: 'name', kind: 'string' },
} as const satisfies Record<string, SortKeyDefinition>;

export const AttributeSortKey = builder.enumType('AttributeSortKey', {
  description: 'Order of attributes: descending (newest, or z first) unless `reverse`; ties by id',
  values: {
    CREATED_AT: { description: 'Creation time' },
    NAME: { description: 'Machine name' },
  } as const satisfies Record<keyof typeof ATTRIBUTE_SORT_KEYS, { description: string }>,
});

builder.queryFields((t) => ({
  product: t.field({
    type: Product,
    nullable: true,
    description: "A product of the store by id; null when absent or another store's. Requires products_read",
    authScopes: { scope: 'products_read' },
    args: { id: t.arg.id({ required: true, description: 'Product id (prd_)' }) },
    resolve: (_root, args, ctx, info) => ctx.reads.product.findFirst({ ...fieldQuery(ctx, info, 'Product'), where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  products: t.connection(
    {
      nullable: false,
      type: Product,
      description: 'Products (variants) of the store matching every filter given, newest first by default, ties by id. Requires products_read',
      authScopes: { scope: 'products_read' },
      args: {
        orderBy: t.arg({ type: ProductSortKey, defaultValue: 'CREATED_AT', description: 'Sort key; CREATED_AT by default' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'true sorts ascending (oldest, or A first) instead of descending' }),
        sku: t.arg.string({ description: 'Only the product with exactly this SKU' }),
        productFamilyId: t.arg.id({ description: 'Only the variants of this product family (pfm_)' }),
        query: t.arg.string({ description: searchHelp('products') }),
      },
      resolve: (_root, args, ctx, info) => {
        const filter: Prisma.ProductWhereInput = {
          storeId: storeIdOf(ctx),
          ...(args.sku ? { sku: args.sku } : {}),
          ...(args.productFamilyId ? { familyId: String(args.productFamilyId) } : {}),
        };
        const search = searchWhere<Prisma.ProductWhereInput>('products', storeIdOf(ctx), args.query);
        return keysetConnection({
          cursors: ctx.services.cursors,
          args,
          scope: 'products',
          sort: keysetSortOf(PRODUCT_SORT_KEYS[args.orderBy ?? 'CREATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.product.findMany({
              ...connectionNodeQuery(ctx, info, 'Product', cursorColumns),
              where: { AND: [filter, where, search ?? {}] },
              orderBy,
              take,
            } as Prisma.ProductFindManyArgs),
        });
      },
    },
    ProductConnection,
  ),
  productFamily: t.field({
    type: ProductFamily,
    nullable: true,
    description: "A product family of the store by id; null when absent or another store's. Requires products_read",
    authScopes: { scope: 'products_read' },
    args: { id: t.arg.id({ required: true, description: 'Product family id (pfm_)' }) },
    resolve: (_root, args, ctx, info) => ctx.reads.productFamily.findFirst({ ...fieldQuery(ctx, info, 'ProductFamily'), where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  productFamilies: t.connection(
    {
      nullable: false,
      type: ProductFamily,
      description: 'Product families of the store, newest first by default, ties by id. Requires products_read',
      authScopes: { scope: 'products_read' },
      args: {
        orderBy: t.arg({ type: ProductSortKey, defaultValue: 'CREATED_AT', description: 'Sort key; CREATED_AT by default' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'true sorts ascending (oldest, or A first) instead of descending' }),
      },
      resolve: (_root, args, ctx, info) =>
        keysetConnection({
          cursors: ctx.services.cursors,
          args,
          scope: 'productFamilies',
          sort: keysetSortOf(PRODUCT_SORT_KEYS[args.orderBy ?? 'CREATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.productFamily.findMany({
              ...connectionNodeQuery(ctx, info, 'ProductFamily', cursorColumns),
              where: { AND: [{ storeId: storeIdOf(ctx) }, where] },
              orderBy,
              take,
            } as Prisma.ProductFamilyFindManyArgs),
        }),
    },
    ProductFamilyConnection,
  ),
  attributes: t.connection(
    {
      nullable: false,
      type: Attribute,
      description:
        "The account's attribute definitions, newest first by default, ties by id; `value` is null here (values are read on products and families). Requires products_read",
      authScopes: { scope: 'products_read' },
      args: {
        orderBy: t.arg({ type: AttributeSortKey, defaultValue: 'CREATED_AT', description: 'Sort key; CREATED_AT by default' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'true sorts ascending (oldest, or a first) instead of descending' }),
      },
      resolve: async (_root, args, ctx) => {
        const page = await keysetConnection({
          cursors: ctx.services.cursors,
          args,
          scope: 'attributes',
          sort: keysetSortOf(ATTRIBUTE_SORT_KEYS[args.orderBy ?? 'CREATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take }) =>
            ctx.reads.attribute.findMany({ where: { AND: [{ storeId: storeIdOf(ctx) }, where] }, orderBy, take } as Prisma.AttributeFindManyArgs),
        });
        return { ...page, edges: page.edges.map((e) => ({ cursor: e.cursor, node: { ...e.node, value: null } })) };
      },
    },
    AttributeConnection,
  ),
}));

// ---------------------------------------------------------------- mutations

const DimensionsInput = builder.inputType('DimensionsInput', {
  description: "A product's dimensions; replaces all three sides and the unit (a side left out becomes null)",
  fields: (t) => ({
    length: t.float({ description: 'Length in `unit`, a number >= 0; left out or null when unknown' }),
    width: t.float({ description: 'Width in `unit`, a number >= 0; left out or null when unknown' }),
    height: t.float({ description: 'Height in `unit`, a number >= 0; left out or null when unknown' }),
    unit: t.field({ type: DimensionUnit, required: true, description: 'Unit of the three sides: IN (inches) or CM (centimetres); stored as given' }),
  }),
});

const WeightInput = builder.inputType('WeightInput', {
  description: "A product's weight",
  fields: (t) => ({
    value: t.float({ required: true, description: 'Weight in `unit`, a number >= 0' }),
    unit: t.field({ type: WeightUnit, required: true, description: 'G, KG, LB or OZ; stored as given' }),
  }),
});

const ProductOptionInput = builder.inputType('ProductOptionInput', {
  description: "A variant's value for one option of its family",
  fields: (t) => ({
    name: t.string({ required: true, description: 'Name of an option of the product family, exactly as defined (e.g. "Size")' }),
    value: t.string({ required: true, description: 'One of the option\'s values, exactly as defined (e.g. "M")' }),
  }),
});

const AttributeValueInput = builder.inputType('AttributeValueInput', {
  description: 'A value for one attribute of the account',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Machine name of an existing attribute (create it with attributeCreate first); each name at most once' }),
    value: t.field({ type: 'JSON', description: "Shaped by the attribute's type (see AttributeType); null or left out removes the value" }),
  }),
});

const ProductInput = builder.inputType('ProductInput', {
  description: 'Fields of a product; on update, fields left out stay as they are and null clears an optional one',
  fields: (t) => ({
    title: t.string({ description: 'Name, 1-255 characters (trimmed); required when creating, cannot be cleared' }),
    description: t.string({ description: 'Free text; "" clears it and null is refused. Default ""' }),
    sku: t.string({ description: "Stock keeping unit, at most 100 characters; unique among the store's products (else CONFLICT)" }),
    upc: t.string({ description: 'Universal Product Code, at most 32 characters (its format is not checked)' }),
    barcodes: t.stringList({ description: 'Further barcodes (EAN, ISBN ...); replaces the list. At most 250 entries of 1-255 characters, duplicates dropped; [] clears it' }),
    vendor: t.string({ description: 'Maker or supplier, at most 255 characters' }),
    tags: t.stringList({ description: 'Replaces the tags. At most 250 entries of 1-255 characters, duplicates dropped; [] clears them' }),
    hsCode: t.string({ description: 'Harmonized System customs tariff code, e.g. "6109.10"; at most 16 characters' }),
    originCountry: t.string({ description: 'Country of origin, ISO 3166-1 alpha-2 (any case; stored in upper case)' }),
    taxCode: t.string({ description: "Tax classification code for the merchant's tax service, at most 64 characters; not interpreted here" }),
    taxable: t.boolean({ description: 'Whether sales tax applies; true by default, null is refused' }),
    physicalItem: t.boolean({ description: 'Whether it is a physical item that is shipped (false for digital goods and services); true by default, null is refused' }),
    currency: t.string({ description: "ISO 4217 code of cost and price; the store's currency by default, null is refused" }),
    cost: t.field({ type: 'Decimal', description: "Merchant's unit cost in `currency`, a decimal string >= 0 with at most 4 decimals (e.g. \"12.50\")" }),
    price: t.field({ type: 'Decimal', description: 'Selling price per unit in `currency`, a decimal string >= 0 with at most 4 decimals (e.g. "19.99")' }),
    dimensions: t.field({ type: DimensionsInput, description: 'Replaces the dimensions; null clears them' }),
    weight: t.field({ type: WeightInput, description: 'Replaces the weight; null clears it' }),
    productFamilyId: t.id({
      description: "The store's product family (pfm_) this product is a variant of; null detaches it. A new family needs `options` for its options",
    }),
    options: t.field({
      type: [ProductOptionInput],
      description: "A value for every option of the product's family; replaces the variant's values. Only for a product with a family",
    }),
    attributes: t.field({ type: [AttributeValueInput], description: 'Attribute values to set or remove; attributes not listed keep their values' }),
  }),
});

const FamilyOptionInput = builder.inputType('ProductFamilyOptionInput', {
  description: 'An option of a product family and its allowed values',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Option name, e.g. "Size"; 1-100 characters, unique within the family ignoring case' }),
    values: t.stringList({ required: true, description: 'Allowed values in display order: 1-100 entries of 1-255 characters, duplicates dropped' }),
  }),
});

const ProductFamilyInput = builder.inputType('ProductFamilyInput', {
  description: 'Fields of a product family; `options` is the complete ordered list (positions follow it)',
  fields: (t) => ({
    title: t.string({ description: 'Name, 1-255 characters (trimmed); required when creating, cannot be cleared' }),
    description: t.string({ description: 'Free text; "" clears it and null is refused. Default ""' }),
    vendor: t.string({ description: 'Maker or supplier, at most 255 characters' }),
    tags: t.stringList({ description: 'Replaces the tags. At most 250 entries of 1-255 characters, duplicates dropped; [] clears them' }),
    options: t.field({
      type: [FamilyOptionInput],
      description: 'The complete ordered list of options, replacing the current ones; [] removes all. An option or value a variant still uses cannot go (CONFLICT)',
    }),
    attributes: t.field({ type: [AttributeValueInput], description: 'Attribute values to set or remove; attributes not listed keep their values' }),
  }),
});

const AttributeCreateInput = builder.inputType('AttributeCreateInput', {
  description: 'A new attribute definition',
  fields: (t) => ({
    name: t.string({
      required: true,
      description: 'Machine name: a lower-case letter, then lower-case letters, digits or _; at most 64 characters, unique within the account, fixed once created',
    }),
    displayName: t.string({ required: true, description: 'Human-readable name, 1-255 characters' }),
    description: t.string({ description: 'Help text, at most 2000 characters' }),
    type: t.field({ type: AttributeType, required: true, description: 'What the values hold; fixed once created' }),
  }),
});

const AttributeUpdateInput = builder.inputType('AttributeUpdateInput', {
  description: "Changes to an attribute; fields left out stay as they are. Its name and type never change",
  fields: (t) => ({
    displayName: t.string({ description: 'Human-readable name, 1-255 characters; null is refused' }),
    description: t.string({ description: 'Help text, at most 2000 characters; null or "" clears it' }),
  }),
});

const ImageInput = builder.inputType('ImageInput', {
  description: 'Fields of an image; on update, fields left out stay as they are',
  fields: (t) => ({
    url: t.string({ description: 'http or https address of the image, at most 2048 characters; required when creating' }),
    altText: t.string({ description: 'Alternative text, at most 512 characters; "" by default' }),
    position: t.int({
      description: '0-based place, 0 to 10000: 0 makes it the default image and the others move to make room; past the end means last. Default: last',
    }),
  }),
});

const ProductPayload = payloadType('ProductPayload', 'product', Product, {
  type: 'Result of productCreate and productUpdate',
  field: 'The product as saved; null when refused',
});
const ProductFamilyPayload = payloadType('ProductFamilyPayload', 'productFamily', ProductFamily, {
  type: 'Result of productFamilyCreate and productFamilyUpdate',
  field: 'The product family as saved; null when refused',
});
const AttributePayload = payloadType('AttributePayload', 'attribute', Attribute, {
  type: 'Result of attributeCreate and attributeUpdate',
  field: 'The attribute as saved (its `value` is null); null when refused',
});
const ProductImagePayload = payloadType('ProductImagePayload', 'image', ProductImage, {
  type: 'Result of productImageCreate and productImageUpdate',
  field: 'The image as saved; null when refused',
});
const ProductFamilyImagePayload = payloadType('ProductFamilyImagePayload', 'image', ProductFamilyImage, {
  type: 'Result of productFamilyImageCreate and productFamilyImageUpdate',
  field: 'The image as saved; null when refused',
});

interface DeletedImage<Owner> {
  deletedImageId: string | null;
  owner: Owner | null;
  userErrors: UserErrorShape[];
}

const USER_ERRORS = 'Why the mutation was refused (nothing was written); empty when it succeeded';

const ProductImageDeletePayload = builder.objectRef<DeletedImage<Plain<ProductRow>>>('ProductImageDeletePayload').implement({
  description: 'Result of productImageDelete',
  fields: (t) => ({
    deletedImageId: t.id({ nullable: true, description: 'Id of the deleted image; null when refused', resolve: (p) => p.deletedImageId }),
    product: t.field({
      type: Product,
      nullable: true,
      description: 'The product the image belonged to, its other images renumbered without gaps; null when refused',
      resolve: (p) => p.owner,
    }),
    userErrors: t.field({ nullable: false, type: [UserError], description: USER_ERRORS, resolve: (p) => p.userErrors }),
  }),
});

const ProductFamilyImageDeletePayload = builder.objectRef<DeletedImage<Plain<Prisma.ProductFamilyGetPayload<object>>>>('ProductFamilyImageDeletePayload').implement({
  description: 'Result of productFamilyImageDelete',
  fields: (t) => ({
    deletedImageId: t.id({ nullable: true, description: 'Id of the deleted image; null when refused', resolve: (p) => p.deletedImageId }),
    productFamily: t.field({
      type: ProductFamily,
      nullable: true,
      description: 'The family the image belonged to, its other images renumbered without gaps; null when refused',
      resolve: (p) => p.owner,
    }),
    userErrors: t.field({ nullable: false, type: [UserError], description: USER_ERRORS, resolve: (p) => p.userErrors }),
  }),
});

const WRITE = { scope: 'products_write' } as const;

builder.mutationFields((t) => ({
  productCreate: t.field({
    type: ProductPayload,
    description:
      "Creates a product, with its option values (for a family's variant) and attribute values. Requires products_write; userErrors: INVALID, CONFLICT (SKU taken)",
    authScopes: WRITE,
    args: { input: t.arg({ type: ProductInput, required: true, description: 'The new product; title is required' }) },
    resolve: (_root, { input }, ctx) => withUserErrors({ ctx, input: 'input' }, () => catalog.createProduct(ctx.prisma, storeIdOf(ctx), input)),
  }),
  productUpdate: t.field({
    type: ProductPayload,
    description: 'Changes a product; fields left out stay as they are. Requires products_write; userErrors: NOT_FOUND, INVALID, CONFLICT (SKU taken)',
    authScopes: WRITE,
    args: {
      id: t.arg.id({ required: true, description: 'Product id (prd_)' }),
      input: t.arg({ type: ProductInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => catalog.updateProduct(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  productFamilyCreate: t.field({
    type: ProductFamilyPayload,
    description: 'Creates a product family with its options and attribute values; add variants with productCreate. Requires products_write; userErrors: INVALID',
    authScopes: WRITE,
    args: { input: t.arg({ type: ProductFamilyInput, required: true, description: 'The new family; title is required' }) },
    resolve: (_root, { input }, ctx) => withUserErrors({ ctx, input: 'input' }, () => catalog.createProductFamily(ctx.prisma, storeIdOf(ctx), input)),
  }),
  productFamilyUpdate: t.field({
    type: ProductFamilyPayload,
    description:
      'Changes a product family; fields left out stay as they are. Requires products_write; userErrors: NOT_FOUND, INVALID, CONFLICT (removing an option or value a variant uses)',
    authScopes: WRITE,
    args: {
      id: t.arg.id({ required: true, description: 'Product family id (pfm_)' }),
      input: t.arg({ type: ProductFamilyInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => catalog.updateProductFamily(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  attributeCreate: t.field({
    type: AttributePayload,
    description: "Defines an attribute for the account's products and families. Requires products_write; userErrors: INVALID, CONFLICT (name taken)",
    authScopes: WRITE,
    args: { input: t.arg({ type: AttributeCreateInput, required: true, description: 'The new attribute' }) },
    resolve: (_root, { input }, ctx) =>
      withUserErrors({ ctx, input: 'input' }, async () => ({ ...(await catalog.createAttribute(ctx.prisma, storeIdOf(ctx), input)), value: null })),
  }),
  attributeUpdate: t.field({
    type: AttributePayload,
    description: 'Changes the display name or description of an attribute. Requires products_write; userErrors: NOT_FOUND, INVALID',
    authScopes: WRITE,
    args: {
      id: t.arg.id({ required: true, description: 'Attribute id (atr_)' }),
      input: t.arg({ type: AttributeUpdateInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, async () => ({
        ...(await catalog.updateAttribute(ctx.prisma, storeIdOf(ctx), String(id), input)),
        value: null,
      })),
  }),
  productImageCreate: t.field({
    type: ProductImagePayload,
    description: 'Adds an image to a product (last unless `position` says otherwise). Requires products_write; userErrors: NOT_FOUND (product), INVALID',
    authScopes: WRITE,
    args: {
      productId: t.arg.id({ required: true, description: 'Product id (prd_)' }),
      input: t.arg({ type: ImageInput, required: true, description: 'The image; url is required' }),
    },
    resolve: (_root, { productId, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['productId'] }, () => catalog.addProductImage(ctx.prisma, storeIdOf(ctx), String(productId), input)),
  }),
  productImageUpdate: t.field({
    type: ProductImagePayload,
    description: "Changes a product image's url or alt text, or moves it (`position`). Requires products_write; userErrors: NOT_FOUND, INVALID",
    authScopes: WRITE,
    args: {
      id: t.arg.id({ required: true, description: 'Image id (img_)' }),
      input: t.arg({ type: ImageInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => catalog.updateProductImage(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  productImageDelete: t.field({
    type: ProductImageDeletePayload,
    description: "Deletes a product image; the product's other images close the gap. Requires products_write; userErrors: NOT_FOUND",
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true, description: 'Image id (img_)' }) },
    resolve: async (_root, { id }, ctx) => {
      const { result, userErrors } = await withUserErrors({ ctx, args: ['id'] }, () => catalog.deleteProductImage(ctx.prisma, storeIdOf(ctx), String(id)));
      return { deletedImageId: result ? String(id) : null, owner: result, userErrors };
    },
  }),
  productFamilyImageCreate: t.field({
    type: ProductFamilyImagePayload,
    description: 'Adds an image to a product family (last unless `position` says otherwise). Requires products_write; userErrors: NOT_FOUND (family), INVALID',
    authScopes: WRITE,
    args: {
      productFamilyId: t.arg.id({ required: true, description: 'Product family id (pfm_)' }),
      input: t.arg({ type: ImageInput, required: true, description: 'The image; url is required' }),
    },
    resolve: (_root, { productFamilyId, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['productFamilyId'] }, () =>
        catalog.addProductFamilyImage(ctx.prisma, storeIdOf(ctx), String(productFamilyId), input),
      ),
  }),
  productFamilyImageUpdate: t.field({
    type: ProductFamilyImagePayload,
    description: "Changes a family image's url or alt text, or moves it (`position`). Requires products_write; userErrors: NOT_FOUND, INVALID",
    authScopes: WRITE,
    args: {
      id: t.arg.id({ required: true, description: 'Family image id (img_)' }),
      input: t.arg({ type: ImageInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => catalog.updateProductFamilyImage(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  productFamilyImageDelete: t.field({
    type: ProductFamilyImageDeletePayload,
    description: "Deletes a family image; the family's other images close the gap. Requires products_write; userErrors: NOT_FOUND",
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true, description: 'Family image id (img_)' }) },
    resolve: async (_root, { id }, ctx) => {
      const { result, userErrors } = await withUserErrors({ ctx, args: ['id'] }, () => catalog.deleteProductFamilyImage(ctx.prisma, storeIdOf(ctx), String(id)));
      return { deletedImageId: result ? String(id) : null, owner: result, userErrors };
    },
  }),
}));

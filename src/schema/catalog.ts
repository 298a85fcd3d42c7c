// The catalogue in v3 (spec 2.8): Product, ProductFamily and its options,
// Attribute, images, Dimensions and Weight; root lookups and lists; the mutations
// of inventory apps (products_write). Rules live in domain/catalog.ts.
import DataLoader from 'dataloader';
import type { Attribute as AttributeRow, Prisma, Product as ProductRow } from '../generated/prisma/client.ts';
import * as catalog from '../domain/catalog.ts';
import type { Plain } from '../db/reads/plain.ts';
import { builder } from './builder.ts';
import { perRequest, storeIdOf, type GraphQLContext } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { connectionNodeQuery, fieldQuery, keysetSortOf, registerNode, type SortKeyDefinition } from './node.ts';
import { money, Money } from './scalars.ts';
import { payloadType, UserError, withUserErrors, type UserErrorShape } from './userErrors.ts';

// ---------------------------------------------------------------- enums and value objects

export const AttributeType = builder.enumType('AttributeType', {
  values: ['SHORT_TEXT', 'LONG_TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'URL', 'WEIGHT', 'DIMENSIONS', 'MONEY'] as const,
});
export const DimensionUnit = builder.enumType('DimensionUnit', { values: ['IN', 'CM'] as const });
export const WeightUnit = builder.enumType('WeightUnit', { values: ['G', 'KG', 'LB', 'OZ'] as const });

interface DimensionsShape {
  length: number | null;
  width: number | null;
  height: number | null;
  unit: 'IN' | 'CM';
}

export const Dimensions = builder.objectRef<DimensionsShape>('Dimensions').implement({
  fields: (t) => ({
    length: t.exposeFloat('length', { nullable: true }),
    width: t.exposeFloat('width', { nullable: true }),
    height: t.exposeFloat('height', { nullable: true }),
    unit: t.field({ nullable: false, type: DimensionUnit, resolve: (d) => d.unit }),
  }),
});

interface WeightShape {
  value: number;
  unit: 'G' | 'KG' | 'LB' | 'OZ';
}

export const Weight = builder.objectRef<WeightShape>('Weight').implement({
  fields: (t) => ({
    value: t.exposeFloat('value', { nullable: false }),
    unit: t.field({ nullable: false, type: WeightUnit, resolve: (w) => w.unit }),
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
    name: t.exposeString('name', { nullable: false }),
    value: t.exposeString('value', { nullable: false }),
  }),
});

// ---------------------------------------------------------------- attributes

type AttributeShape = Plain<AttributeRow> & { value: Prisma.JsonValue | null };

export const Attribute = builder.objectRef<AttributeShape>('Attribute').implement({
  description: 'A merchant-defined attribute and, where it was reached from a product or family, its value there',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'Machine name, unique within the account' }),
    displayName: t.exposeString('displayName', { nullable: false }),
    description: t.exposeString('description', { nullable: true }),
    type: t.field({ nullable: false, type: AttributeType, resolve: (a) => a.type }),
    value: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Typed by `type`: a string, number, boolean, {value, unit} (WEIGHT), {amount, currency} (MONEY) ...; null when unset',
      resolve: (a) => a.value,
    }),
  }),
});

registerNode(Attribute, {
  scope: 'products_read',
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
  fields: (t) => ({
    altText: t.exposeString('altText', { nullable: false }),
    default: t.boolean({ nullable: false, description: 'The first image is the default', resolve: (image) => image.position === 0 }),
    position: t.exposeInt('position', { nullable: false }),
    url: t.exposeString('url', { nullable: false }),
  }),
});

registerNode(ProductImage, {
  scope: 'products_read',
  load: (id, ctx, info) => ctx.reads.productImage.findFirst({ ...fieldQuery(ctx, info, 'ProductImage'), where: { id, product: { storeId: storeIdOf(ctx) } } }),
});

export const ProductFamilyImage = builder.prismaObject('ProductFamilyImage', {
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    altText: t.exposeString('altText', { nullable: false }),
    default: t.boolean({ nullable: false, description: 'The first image is the default', resolve: (image) => image.position === 0 }),
    position: t.exposeInt('position', { nullable: false }),
    url: t.exposeString('url', { nullable: false }),
  }),
});

export const ProductImageConnection = builder.connectionObject({ type: ProductImage, name: 'ProductImageConnection' });
export const ProductFamilyImageConnection = builder.connectionObject({ type: ProductFamilyImage, name: 'ProductFamilyImageConnection' });

// ---------------------------------------------------------------- products

export const Product = builder.prismaObject('Product', {
  // Select mode (builder.ts): the title loads with every product.
  select: { id: true, title: true },
  fields: (t) => ({
    title: t.string({ nullable: false, resolve: (p) => p.title }),
    description: t.exposeString('description', { nullable: false }),
    sku: t.exposeString('sku', { nullable: true }),
    externalId: t.exposeString('externalId', { nullable: true, description: "The variant's id in the merchant's system (bulk upload)" }),
    upc: t.exposeString('upc', { nullable: true }),
    barcodes: t.exposeStringList('barcodes', { nullable: false }),
    vendor: t.exposeString('vendor', { nullable: true }),
    tags: t.exposeStringList('tags', { nullable: false }),
    hsCode: t.exposeString('hsCode', { nullable: true, description: 'Customs code' }),
    originCountry: t.exposeString('originCountry', { nullable: true, description: 'Country code' }),
    taxCode: t.exposeString('taxCode', { nullable: true }),
    taxable: t.exposeBoolean('taxable', { nullable: false }),
    physicalItem: t.exposeBoolean('physicalItem', { nullable: false }),
    cost: t.field({ type: Money, nullable: true, description: "Merchant's unit cost", select: { cost: true, currency: true }, resolve: (p) => money(p.cost, p.currency) }),
    price: t.field({ type: Money, nullable: true, description: 'Selling price', select: { price: true, currency: true }, resolve: (p) => money(p.price, p.currency) }),
    dimensions: t.field({ type: Dimensions, nullable: true, select: MEASURES, resolve: dimensionsOf }),
    weight: t.field({ type: Weight, nullable: true, select: MEASURES, resolve: weightOf }),
    options: t.field({
      nullable: false,
      type: [ProductOptionValue],
      description: "Ordered by the family's option positions",
      select: { options: { include: { option: true }, orderBy: { option: { position: 'asc' } } } },
      resolve: (p) => p.options.map((o) => ({ name: o.option.name, value: o.value })),
    }),
    attributes: t.field({ nullable: false, type: [Attribute], select: attributeValuesSelection, resolve: (p) => attributesOf(p.attributes) }),
    attribute: t.field({
      type: Attribute,
      nullable: true,
      description: 'The attribute with this machine name and its value here; null when the account has no such attribute',
      args: { name: t.arg.string({ required: true }) },
      select: { storeId: true },
      resolve: (p, args, ctx) => attributeLoader(ctx).load({ storeId: p.storeId, owner: { productId: p.id }, name: args.name }),
    }),
    image: t.field({
      type: ProductImage,
      nullable: true,
      description: 'First (default) image',
      authScopes: { scope: 'products_read' },
      select: (_args, _ctx, nestedSelection) => ({ images: nestedSelection({ orderBy: IMAGE_ORDER, take: 1 }) }),
      resolve: (p) => p.images[0] ?? null,
    }),
    images: t.relatedConnection('images', { nullable: false, cursor: 'id', authScopes: { scope: 'products_read' }, query: { orderBy: IMAGE_ORDER } }, ProductImageConnection),
    productFamily: t.relation('family', { nullable: true, authScopes: { scope: 'products_read' } }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

registerNode(Product, {
  scope: 'products_read',
  load: (id, ctx, info) => ctx.reads.product.findFirst({ ...fieldQuery(ctx, info, 'Product'), where: { id, storeId: storeIdOf(ctx) } }),
});

/** The fulfillment view of a product: what a warehouse needs to handle it, readable by anyone who sees its stock. */
export const InventoryProduct = builder.prismaObject('Product', {
  variant: 'InventoryProduct',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    title: t.exposeString('title', { nullable: false }),
    sku: t.exposeString('sku', { nullable: true }),
    upc: t.exposeString('upc', { nullable: true }),
    barcodes: t.exposeStringList('barcodes', { nullable: false }),
    weight: t.field({ type: Weight, nullable: true, resolve: weightOf }),
    dimensions: t.field({ type: Dimensions, nullable: true, resolve: dimensionsOf }),
  }),
});

export const ProductConnection = builder.connectionObject({ type: Product, name: 'ProductConnection' });

// ---------------------------------------------------------------- families

export const ProductFamilyOption = builder.prismaObject('ProductFamilyOption', {
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    name: t.exposeString('name', { nullable: false }),
    position: t.exposeInt('position', { nullable: false }),
    values: t.exposeStringList('values', { nullable: false, description: 'Allowed values, in display order' }),
  }),
});

export const ProductKind = builder.enumType('ProductKind', { values: ['SELLABLE', 'NON_SELLABLE'] as const });

export const ProductFamily = builder.prismaObject('ProductFamily', {
  fields: (t) => ({
    title: t.exposeString('title', { nullable: false }),
    externalId: t.exposeString('externalId', { nullable: true, description: "The family's id in the merchant's system (bulk upload)" }),
    kind: t.expose('kind', { type: ProductKind, nullable: false }),
    description: t.exposeString('description', { nullable: false }),
    vendor: t.exposeString('vendor', { nullable: true }),
    tags: t.exposeStringList('tags', { nullable: false }),
    options: t.relation('options', { nullable: false, query: { orderBy: [{ position: 'asc' }, { id: 'asc' }] } }),
    attributes: t.field({ nullable: false, type: [Attribute], select: attributeValuesSelection, resolve: (f) => attributesOf(f.attributes) }),
    attribute: t.field({
      type: Attribute,
      nullable: true,
      description: 'The attribute with this machine name and its value here; null when the account has no such attribute',
      args: { name: t.arg.string({ required: true }) },
      resolve: (f, args, ctx) => attributeLoader(ctx).load({ storeId: f.storeId, owner: { familyId: f.id }, name: args.name }),
    }),
    image: t.field({
      type: ProductFamilyImage,
      nullable: true,
      description: 'First (default) image',
      select: (_args, _ctx, nestedSelection) => ({ images: nestedSelection({ orderBy: IMAGE_ORDER, take: 1 }) }),
      resolve: (f) => f.images[0] ?? null,
    }),
    images: t.relatedConnection('images', { nullable: false, cursor: 'id', query: { orderBy: IMAGE_ORDER } }, ProductFamilyImageConnection),
    products: t.relatedConnection(
      'products',
      { nullable: false, cursor: 'id', description: 'The variants of the family', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
      ProductConnection,
    ),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

registerNode(ProductFamily, {
  scope: 'products_read',
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

export const ProductSortKey = builder.enumType('ProductSortKey', { values: Object.keys(PRODUCT_SORT_KEYS) as (keyof typeof PRODUCT_SORT_KEYS)[] });

const ATTRIBUTE_SORT_KEYS = {
  CREATED_AT: { field: 'createdAt', kind: 'date' },
  NAME: { field: 'name', kind: 'string' },
} as const satisfies Record<string, SortKeyDefinition>;

export const AttributeSortKey = builder.enumType('AttributeSortKey', { values: Object.keys(ATTRIBUTE_SORT_KEYS) as (keyof typeof ATTRIBUTE_SORT_KEYS)[] });

builder.queryFields((t) => ({
  product: t.field({
    type: Product,
    nullable: true,
    description: 'A product of the store; null when absent',
    authScopes: { scope: 'products_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx, info) => ctx.reads.product.findFirst({ ...fieldQuery(ctx, info, 'Product'), where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  products: t.connection(
    {
      nullable: false,
      type: Product,
      description: 'Products (variants) of the store; newest first by default',
      authScopes: { scope: 'products_read' },
      args: {
        orderBy: t.arg({ type: ProductSortKey, defaultValue: 'CREATED_AT' }),
        reverse: t.arg.boolean({ defaultValue: false }),
        sku: t.arg.string(),
        productFamilyId: t.arg.id(),
      },
      resolve: (_root, args, ctx, info) => {
        const filter: Prisma.ProductWhereInput = {
          storeId: storeIdOf(ctx),
          ...(args.sku ? { sku: args.sku } : {}),
          ...(args.productFamilyId ? { familyId: String(args.productFamilyId) } : {}),
        };
        return keysetConnection({
          args,
          scope: 'products',
          sort: keysetSortOf(PRODUCT_SORT_KEYS[args.orderBy ?? 'CREATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.product.findMany({ ...connectionNodeQuery(ctx, info, 'Product', cursorColumns), where: { AND: [filter, where] }, orderBy, take } as Prisma.ProductFindManyArgs),
        });
      },
    },
    ProductConnection,
  ),
  productFamily: t.field({
    type: ProductFamily,
    nullable: true,
    description: 'A product family of the store; null when absent',
    authScopes: { scope: 'products_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx, info) => ctx.reads.productFamily.findFirst({ ...fieldQuery(ctx, info, 'ProductFamily'), where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  productFamilies: t.connection(
    {
      nullable: false,
      type: ProductFamily,
      description: 'Product families of the store; newest first by default',
      authScopes: { scope: 'products_read' },
      args: {
        orderBy: t.arg({ type: ProductSortKey, defaultValue: 'CREATED_AT' }),
        reverse: t.arg.boolean({ defaultValue: false }),
      },
      resolve: (_root, args, ctx, info) =>
        keysetConnection({
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
      description: "The account's attribute definitions (values are read on products and families)",
      authScopes: { scope: 'products_read' },
      args: {
        orderBy: t.arg({ type: AttributeSortKey, defaultValue: 'CREATED_AT' }),
        reverse: t.arg.boolean({ defaultValue: false }),
      },
      resolve: async (_root, args, ctx) => {
        const page = await keysetConnection({
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
  fields: (t) => ({
    length: t.float(),
    width: t.float(),
    height: t.float(),
    unit: t.field({ type: DimensionUnit, required: true }),
  }),
});

const WeightInput = builder.inputType('WeightInput', {
  fields: (t) => ({
    value: t.float({ required: true }),
    unit: t.field({ type: WeightUnit, required: true }),
  }),
});

const ProductOptionInput = builder.inputType('ProductOptionInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Name of an option of the product family' }),
    value: t.string({ required: true, description: "One of the option's values" }),
  }),
});

const AttributeValueInput = builder.inputType('AttributeValueInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Machine name of an existing attribute' }),
    value: t.field({ type: 'JSON', description: "Shaped by the attribute's type; null removes the value" }),
  }),
});

const ProductInput = builder.inputType('ProductInput', {
  description: 'Fields of a product; on update, fields left out stay as they are and null clears an optional one',
  fields: (t) => ({
    title: t.string({ description: 'Required when creating' }),
    description: t.string(),
    sku: t.string(),
    upc: t.string(),
    barcodes: t.stringList(),
    vendor: t.string(),
    tags: t.stringList(),
    hsCode: t.string(),
    originCountry: t.string({ description: 'ISO 3166-1 alpha-2' }),
    taxCode: t.string(),
    taxable: t.boolean(),
    physicalItem: t.boolean(),
    currency: t.string({ description: "ISO 4217 code of cost and price; the store's currency by default" }),
    cost: t.field({ type: 'Decimal' }),
    price: t.field({ type: 'Decimal' }),
    dimensions: t.field({ type: DimensionsInput }),
    weight: t.field({ type: WeightInput }),
    productFamilyId: t.id(),
    options: t.field({ type: [ProductOptionInput], description: "A value for every option of the product's family" }),
    attributes: t.field({ type: [AttributeValueInput] }),
  }),
});

const FamilyOptionInput = builder.inputType('ProductFamilyOptionInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    values: t.stringList({ required: true }),
  }),
});

const ProductFamilyInput = builder.inputType('ProductFamilyInput', {
  description: 'Fields of a product family; `options` is the complete ordered list (positions follow it)',
  fields: (t) => ({
    title: t.string({ description: 'Required when creating' }),
    description: t.string(),
    vendor: t.string(),
    tags: t.stringList(),
    options: t.field({ type: [FamilyOptionInput] }),
    attributes: t.field({ type: [AttributeValueInput] }),
  }),
});

const AttributeCreateInput = builder.inputType('AttributeCreateInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Machine name: a lower-case letter, then letters, digits or _' }),
    displayName: t.string({ required: true }),
    description: t.string(),
    type: t.field({ type: AttributeType, required: true }),
  }),
});

const AttributeUpdateInput = builder.inputType('AttributeUpdateInput', {
  fields: (t) => ({
    displayName: t.string(),
    description: t.string(),
  }),
});

const ImageInput = builder.inputType('ImageInput', {
  fields: (t) => ({
    url: t.string({ description: 'http(s) address; required when creating' }),
    altText: t.string(),
    position: t.int({ description: '0 makes it the default image; others move to make room. Default: last' }),
  }),
});

const ProductPayload = payloadType('ProductPayload', 'product', Product);
const ProductFamilyPayload = payloadType('ProductFamilyPayload', 'productFamily', ProductFamily);
const AttributePayload = payloadType('AttributePayload', 'attribute', Attribute);
const ProductImagePayload = payloadType('ProductImagePayload', 'image', ProductImage);
const ProductFamilyImagePayload = payloadType('ProductFamilyImagePayload', 'image', ProductFamilyImage);

interface DeletedImage<Owner> {
  deletedImageId: string | null;
  owner: Owner | null;
  userErrors: UserErrorShape[];
}

const ProductImageDeletePayload = builder.objectRef<DeletedImage<Plain<ProductRow>>>('ProductImageDeletePayload').implement({
  fields: (t) => ({
    deletedImageId: t.id({ nullable: true, resolve: (p) => p.deletedImageId }),
    product: t.field({ type: Product, nullable: true, resolve: (p) => p.owner }),
    userErrors: t.field({ nullable: false, type: [UserError], resolve: (p) => p.userErrors }),
  }),
});

const ProductFamilyImageDeletePayload = builder.objectRef<DeletedImage<Plain<Prisma.ProductFamilyGetPayload<object>>>>('ProductFamilyImageDeletePayload').implement({
  fields: (t) => ({
    deletedImageId: t.id({ nullable: true, resolve: (p) => p.deletedImageId }),
    productFamily: t.field({ type: ProductFamily, nullable: true, resolve: (p) => p.owner }),
    userErrors: t.field({ nullable: false, type: [UserError], resolve: (p) => p.userErrors }),
  }),
});

const WRITE = { scope: 'products_write' } as const;

builder.mutationFields((t) => ({
  productCreate: t.field({
    type: ProductPayload,
    authScopes: WRITE,
    args: { input: t.arg({ type: ProductInput, required: true }) },
    resolve: (_root, { input }, ctx) => withUserErrors({ ctx, input: 'input' }, () => catalog.createProduct(ctx.prisma, storeIdOf(ctx), input)),
  }),
  productUpdate: t.field({
    type: ProductPayload,
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ProductInput, required: true }) },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => catalog.updateProduct(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  productFamilyCreate: t.field({
    type: ProductFamilyPayload,
    authScopes: WRITE,
    args: { input: t.arg({ type: ProductFamilyInput, required: true }) },
    resolve: (_root, { input }, ctx) => withUserErrors({ ctx, input: 'input' }, () => catalog.createProductFamily(ctx.prisma, storeIdOf(ctx), input)),
  }),
  productFamilyUpdate: t.field({
    type: ProductFamilyPayload,
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ProductFamilyInput, required: true }) },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => catalog.updateProductFamily(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  attributeCreate: t.field({
    type: AttributePayload,
    authScopes: WRITE,
    args: { input: t.arg({ type: AttributeCreateInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      withUserErrors({ ctx, input: 'input' }, async () => ({ ...(await catalog.createAttribute(ctx.prisma, storeIdOf(ctx), input)), value: null })),
  }),
  attributeUpdate: t.field({
    type: AttributePayload,
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: AttributeUpdateInput, required: true }) },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, async () => ({
        ...(await catalog.updateAttribute(ctx.prisma, storeIdOf(ctx), String(id), input)),
        value: null,
      })),
  }),
  productImageCreate: t.field({
    type: ProductImagePayload,
    authScopes: WRITE,
    args: { productId: t.arg.id({ required: true }), input: t.arg({ type: ImageInput, required: true }) },
    resolve: (_root, { productId, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['productId'] }, () => catalog.addProductImage(ctx.prisma, storeIdOf(ctx), String(productId), input)),
  }),
  productImageUpdate: t.field({
    type: ProductImagePayload,
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ImageInput, required: true }) },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => catalog.updateProductImage(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  productImageDelete: t.field({
    type: ProductImageDeletePayload,
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const { result, userErrors } = await withUserErrors({ ctx, args: ['id'] }, () => catalog.deleteProductImage(ctx.prisma, storeIdOf(ctx), String(id)));
      return { deletedImageId: result ? String(id) : null, owner: result, userErrors };
    },
  }),
  productFamilyImageCreate: t.field({
    type: ProductFamilyImagePayload,
    authScopes: WRITE,
    args: { productFamilyId: t.arg.id({ required: true }), input: t.arg({ type: ImageInput, required: true }) },
    resolve: (_root, { productFamilyId, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['productFamilyId'] }, () =>
        catalog.addProductFamilyImage(ctx.prisma, storeIdOf(ctx), String(productFamilyId), input),
      ),
  }),
  productFamilyImageUpdate: t.field({
    type: ProductFamilyImagePayload,
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ImageInput, required: true }) },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => catalog.updateProductFamilyImage(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  productFamilyImageDelete: t.field({
    type: ProductFamilyImageDeletePayload,
    authScopes: WRITE,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const { result, userErrors } = await withUserErrors({ ctx, args: ['id'] }, () => catalog.deleteProductFamilyImage(ctx.prisma, storeIdOf(ctx), String(id)));
      return { deletedImageId: result ? String(id) : null, owner: result, userErrors };
    },
  }),
}));

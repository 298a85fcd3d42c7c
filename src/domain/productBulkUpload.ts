// Bulk upload of product families with their variants (the reference's "Bulk upload
// products"). Each family is matched to an existing one by our id, else by the merchant's
// external id, else through its variants' SKUs, and created when nothing matches; its
// variants likewise by our id, external id, then SKU. Every family is written in its own
// transaction, so one family's mistake leaves the others written and itself untouched,
// and each gets its own result. One upload runs at a time per store: a lock row held (and
// renewed) for the whole run refuses a second one with a Conflict.
import crypto from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DimensionUnit, Prisma, ProductKind, WeightUnit } from '../generated/prisma/client.ts';
import { checkFamilyOptions, checkUniqueSku, writeFamilyOptions, type FamilyOptionInput } from './catalog.ts';
import { countryCode, currencyCode, httpUrl, InputIssues, measure, optionalText, requiredText, textList } from './inputChecks.ts';
import { Conflict, Invalid, isDomainError, NotFound } from './errors.ts';
import { newId } from './ids.ts';
import { currencyExponent, Decimal } from './money.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export const MAX_FAMILIES = 1000;
export const MAX_VARIANTS = 100;
const LOCK = 'product_bulk_upload';
/** How long a run may go without renewing its lock before another upload may take it over. */
const LEASE_MS = 5 * 60_000;

const WEIGHT_UNITS: Record<string, { unit: WeightUnit; factor: number }> = {
  g: { unit: 'G', factor: 1 },
  kg: { unit: 'KG', factor: 1 },
  lb: { unit: 'LB', factor: 1 },
  oz: { unit: 'OZ', factor: 1 },
  // Tonnes have no unit of their own here: kept exactly as kilograms.
  t: { unit: 'KG', factor: 1000 },
};
const DIMENSION_UNITS: Record<string, DimensionUnit> = { in: 'IN', cm: 'CM' };
const KINDS: readonly ProductKind[] = ['SELLABLE', 'NON_SELLABLE'];

export interface BulkImageInput {
  url: string;
  altText?: string | null;
}

export interface BulkVariantInput {
  /** Our product id (prd_). */
  id?: string | null;
  externalId?: string | null;
  title?: string | null;
  sku: string;
  upc?: string | null;
  barcodes?: string[] | null;
  /** In the currency's minor unit (cents for USD). */
  price: number;
  currency: string;
  weight?: number | null;
  weightUnit?: string | null;
  width?: number | null;
  length?: number | null;
  height?: number | null;
  dimensionUnit?: string | null;
  hsCode?: string | null;
  originCountry?: string | null;
  /** One value per option of the family, in the options' order. */
  optionValues?: string[] | null;
  images?: BulkImageInput[] | null;
}

export interface BulkProductFamilyInput {
  /** Our product family id (pfm_). */
  productFamilyId?: string | null;
  externalId?: string | null;
  title: string;
  description?: string | null;
  vendor?: string | null;
  tags?: string[] | null;
  kind?: string | null;
  options?: FamilyOptionInput[] | null;
  images?: BulkImageInput[] | null;
  variants: BulkVariantInput[];
}

export type BulkFamilyResult =
  | { status: 'created' | 'updated'; productFamilyId: string; products: { id: string; sku: string }[] }
  | { status: 'error'; error: string };

// ---------------------------------------------------------------- the store's lock

/** Takes the store's upload lock, or a Conflict when a live run holds it. */
async function acquireLock(db: Db, storeId: string): Promise<string> {
  const runId = crypto.randomUUID();
  const now = new Date();
  const taken = await db.$executeRaw`
    INSERT INTO "BulkOperationLock" ("storeId", "operation", "runId", "expiresAt")
    VALUES (${storeId}, ${LOCK}, ${runId}, ${new Date(now.getTime() + LEASE_MS)})
    ON CONFLICT ("storeId", "operation") DO UPDATE SET "runId" = EXCLUDED."runId", "expiresAt" = EXCLUDED."expiresAt", "createdAt" = ${now}
    WHERE "BulkOperationLock"."expiresAt" < ${now}`;
  if (taken !== 1) throw new Conflict('a bulk upload is already in progress for this store', { path: 'products' });
  return runId;
}

/** Extends the run's lease; false when the lock is no longer the run's. */
async function renewLock(db: Db, storeId: string, runId: string): Promise<boolean> {
  const expiresAt = new Date(Date.now() + LEASE_MS);
  const renewed = await db.bulkOperationLock.updateMany({ where: { storeId, operation: LOCK, runId }, data: { expiresAt } });
  return renewed.count === 1;
}

async function releaseLock(db: Db, storeId: string, runId: string): Promise<void> {
  await db.bulkOperationLock.deleteMany({ where: { storeId, operation: LOCK, runId } });
}

// ---------------------------------------------------------------- one family

function images(issues: InputIssues, path: string, inputs: BulkImageInput[]) {
  return inputs.map((image, i) => ({
    url: httpUrl(issues, `${path}.${i}.url`, image.url) ?? '',
    altText: optionalText(issues, `${path}.${i}.altText`, image.altText ?? null, 1000) ?? '',
  }));
}

/** A variant's product columns; its price from minor units to an exact amount in the currency. */
function variantColumns(issues: InputIssues, path: string, variant: BulkVariantInput, familyTitle: string) {
  const currency = currencyCode(issues, `${path}.currency`, variant.currency);
  if (!Number.isSafeInteger(variant.price) || variant.price < 0) issues.add(`${path}.price`, 'must be a whole number of minor units, at least 0');
  const weightUnit = variant.weightUnit == null ? null : WEIGHT_UNITS[variant.weightUnit];
  if (variant.weightUnit != null && !weightUnit) issues.add(`${path}.weightUnit`, `must be one of ${Object.keys(WEIGHT_UNITS).join(', ')}`);
  const weight = measure(issues, `${path}.weight`, variant.weight);
  const dimensionUnit = variant.dimensionUnit == null ? null : DIMENSION_UNITS[variant.dimensionUnit];
  if (variant.dimensionUnit != null && !dimensionUnit) issues.add(`${path}.dimensionUnit`, `must be one of ${Object.keys(DIMENSION_UNITS).join(', ')}`);
  return {
    externalId: optionalText(issues, `${path}.externalId`, variant.externalId ?? null) ?? null,
    title: variant.title?.trim() ? requiredText(issues, `${path}.title`, variant.title, 500) : familyTitle,
    sku: requiredText(issues, `${path}.sku`, variant.sku),
    upc: optionalText(issues, `${path}.upc`, variant.upc ?? null, 50) ?? null,
    barcodes: textList(issues, `${path}.barcodes`, variant.barcodes ?? []) ?? [],
    hsCode: optionalText(issues, `${path}.hsCode`, variant.hsCode ?? null, 50) ?? null,
    originCountry: countryCode(issues, `${path}.originCountry`, variant.originCountry ?? null) ?? null,
    currency: currency ?? 'USD',
    price: Number.isSafeInteger(variant.price) && currency ? new Decimal(variant.price).dividedBy(10 ** currencyExponent(currency)) : null,
    weightValue: weight === null || !weightUnit ? null : weight * weightUnit.factor,
    weightUnit: weight === null ? null : (weightUnit?.unit ?? null),
    length: measure(issues, `${path}.length`, variant.length),
    width: measure(issues, `${path}.width`, variant.width),
    height: measure(issues, `${path}.height`, variant.height),
    dimensionUnit,
  };
}

function familyColumns(issues: InputIssues, input: BulkProductFamilyInput) {
  const kind = input.kind ?? 'SELLABLE';
  if (!KINDS.includes(kind as ProductKind)) issues.add('kind', `must be one of ${KINDS.join(', ')}`);
  return {
    title: requiredText(issues, 'title', input.title, 500),
    description: input.description?.trim() ?? '',
    vendor: optionalText(issues, 'vendor', input.vendor ?? null) ?? null,
    tags: textList(issues, 'tags', input.tags ?? []) ?? [],
    kind: kind as ProductKind,
  };
}

/** The existing family the input names: our id, else its external id, else one its variants' SKUs belong to. */
async function matchFamily(tx: Tx, storeId: string, input: BulkProductFamilyInput, skus: string[]): Promise<{ id: string } | null> {
  if (input.productFamilyId) {
    const family = await tx.productFamily.findFirst({ where: { id: input.productFamilyId, storeId }, select: { id: true } });
    if (!family) throw new NotFound(`product family ${input.productFamilyId} not found`, { path: 'productFamilyId' });
    return family;
  }
  if (input.externalId) {
    const family = await tx.productFamily.findUnique({ where: { storeId_externalId: { storeId, externalId: input.externalId } }, select: { id: true } });
    if (family) return family;
  }
  const owners = await tx.product.findMany({ where: { storeId, sku: { in: skus }, familyId: { not: null } }, select: { familyId: true }, distinct: ['familyId'] });
  if (owners.length > 1) {
    throw new Conflict(`the variants' SKUs belong to ${owners.length} product families (${owners.map((o) => o.familyId).join(', ')})`, { path: 'variants' });
  }
  return owners[0] ? { id: owners[0].familyId! } : null;
}

/** The existing product a variant names: our id, else its external id, else its SKU. */
async function matchVariant(tx: Tx, storeId: string, variant: BulkVariantInput, path: string) {
  const select = { id: true, familyId: true } satisfies Prisma.ProductSelect;
  if (variant.id) {
    const product = await tx.product.findFirst({ where: { id: variant.id, storeId }, select });
    if (!product) throw new NotFound(`${path}.id: product ${variant.id} not found`, { path: `${path}.id` });
    return product;
  }
  if (variant.externalId) {
    const product = await tx.product.findUnique({ where: { storeId_externalId: { storeId, externalId: variant.externalId } }, select });
    if (product) return product;
  }
  return tx.product.findFirst({ where: { storeId, sku: variant.sku.trim() }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select });
}

async function replaceImages(tx: Tx, owner: { productId: string } | { familyId: string }, list: { url: string; altText: string }[]) {
  const rows = list.map((image, position) => ({ id: newId('productImage'), ...image, position }));
  if ('productId' in owner) {
    await tx.productImage.deleteMany({ where: owner });
    await tx.productImage.createMany({ data: rows.map((row) => ({ ...row, ...owner })) });
  } else {
    await tx.productFamilyImage.deleteMany({ where: owner });
    await tx.productFamilyImage.createMany({ data: rows.map((row) => ({ ...row, ...owner })) });
  }
}

async function writeFamily(tx: Tx, storeId: string, input: BulkProductFamilyInput): Promise<BulkFamilyResult> {
  const issues = new InputIssues();
  const columns = familyColumns(issues, input);
  const externalId = optionalText(issues, 'externalId', input.externalId ?? null) ?? null;
  const options = input.options ? checkFamilyOptions(issues, input.options) : undefined;
  const familyImages = input.images ? images(issues, 'images', input.images) : undefined;
  const variants = input.variants.map((variant, i) => ({
    input: variant,
    columns: variantColumns(issues, `variants.${i}`, variant, columns.title),
    images: variant.images ? images(issues, `variants.${i}.images`, variant.images) : undefined,
  }));
  issues.throwIfAny();

  const matched = await matchFamily(tx, storeId, input, variants.map((v) => v.columns.sku));
  const products = [];
  for (const [i, variant] of variants.entries()) {
    const product = await matchVariant(tx, storeId, variant.input, `variants.${i}`);
    if (product?.familyId && product.familyId !== matched?.id) {
      throw new Conflict(`variants.${i}: product ${product.id} belongs to another product family (${product.familyId})`, { path: `variants.${i}` });
    }
    await checkUniqueSku(tx, storeId, variant.columns.sku, product?.id);
    products.push(product);
  }
  const familyId = matched?.id ?? newId('productFamily');
  const familyData = { ...columns, ...(externalId ? { externalId } : {}) };
  if (matched) await tx.productFamily.update({ where: { id: familyId }, data: familyData });
  else await tx.productFamily.create({ data: { id: familyId, storeId, ...familyData } });
  if (familyImages) await replaceImages(tx, { familyId }, familyImages);
  const kept = products.flatMap((product) => (product ? [product.id] : []));
  if (options) {
    // The uploaded variants' values are rewritten below; only the others' can hold an option back.
    await tx.productOptionValue.deleteMany({ where: { productId: { in: kept } } });
    await writeFamilyOptions(tx, familyId, options);
  }
  const familyOptions = await tx.productFamilyOption.findMany({ where: { familyId }, orderBy: { position: 'asc' } });

  const written: { id: string; sku: string }[] = [];
  for (const [i, variant] of variants.entries()) {
    const values = variant.input.optionValues ?? [];
    const chosen = values.map((value, j) => {
      const option = familyOptions[j];
      if (!option) throw new Invalid(`variants.${i}.optionValues: the family has ${familyOptions.length} option(s), ${values.length} value(s) given`, { path: `variants.${i}.optionValues` });
      if (!option.values.includes(value.trim())) {
        throw new Invalid(`variants.${i}.optionValues.${j}: "${value}" is not a value of option ${option.name} (${option.values.join(', ')})`, { path: `variants.${i}.optionValues.${j}` });
      }
      return { optionId: option.id, value: value.trim() };
    });
    if (input.options !== undefined || values.length > 0) {
      if (chosen.length !== familyOptions.length) {
        throw new Invalid(`variants.${i}.optionValues: a value is required for every option of the family (${familyOptions.map((o) => o.name).join(', ')})`, { path: `variants.${i}.optionValues` });
      }
    }
    const id = products[i]?.id ?? newId('product');
    const data = { ...variant.columns, familyId, vendor: columns.vendor };
    if (products[i]) await tx.product.update({ where: { id }, data });
    else await tx.product.create({ data: { id, storeId, ...data } });
    if (input.options !== undefined || values.length > 0) {
      await tx.productOptionValue.deleteMany({ where: { productId: id } });
      await tx.productOptionValue.createMany({ data: chosen.map((c) => ({ ...c, productId: id })) });
    }
    if (variant.images) await replaceImages(tx, { productId: id }, variant.images);
    written.push({ id, sku: variant.columns.sku });
  }
  return { status: matched ? 'updated' : 'created', productFamilyId: familyId, products: written };
}

// ---------------------------------------------------------------- the upload

/** SKUs of each family already used by an earlier family of the request (or twice in it). */
function repeatedSkus(families: BulkProductFamilyInput[]): (string | null)[] {
  const seen = new Set<string>();
  return families.map((family) => {
    const skus = family.variants.map((variant) => variant.sku.trim());
    const repeated = skus.find((sku, i) => seen.has(sku) || skus.indexOf(sku) !== i) ?? null;
    skus.forEach((sku) => seen.add(sku));
    return repeated;
  });
}

function checkSizes(families: BulkProductFamilyInput[]): void {
  const issues = new InputIssues();
  if (families.length < 1 || families.length > MAX_FAMILIES) issues.add('products', `must list 1 to ${MAX_FAMILIES} product families`);
  families.forEach((family, i) => {
    if (family.variants.length < 1 || family.variants.length > MAX_VARIANTS) issues.add(`products.${i}.variants`, `must list 1 to ${MAX_VARIANTS} variants`);
  });
  issues.throwIfAny();
}

/**
 * Creates or updates the families, each atomically, in the request's order, and answers one
 * result per family. A second upload of the store while this one runs is a Conflict.
 */
export async function bulkUpsertProductFamilies(db: Db, storeId: string, families: BulkProductFamilyInput[]): Promise<BulkFamilyResult[]> {
  checkSizes(families);
  const repeated = repeatedSkus(families);
  const runId = await acquireLock(db, storeId);
  try {
    const results: BulkFamilyResult[] = [];
    for (const [i, family] of families.entries()) {
      if (repeated[i]) {
        results.push({ status: 'error', error: `Duplicate SKU found in request: ${repeated[i]}` });
        continue;
      }
      try {
        results.push(await inTransaction(db, (tx) => writeFamily(tx, storeId, family)));
      } catch (error) {
        if (!isDomainError(error)) throw error;
        results.push({ status: 'error', error: error.message });
      }
      // A long upload must not hold the process: with the embedded database its queries
      // never leave the microtask queue, so other requests would wait for the whole run.
      await nextTurn();
      if (!(await renewLock(db, storeId, runId))) {
        throw new Conflict(`the upload lost the store's lock after ${i + 1} product families; another upload took over`, { path: 'products' });
      }
    }
    return results;
  } finally {
    await releaseLock(db, storeId, runId);
  }
}

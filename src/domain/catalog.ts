// The catalogue: products (variants), product families with their options,
// merchant-defined attributes and their typed values, and images. Every write is
// validated completely before anything is written and runs in one transaction.
import { Prisma, type AttributeType, type DimensionUnit, type WeightUnit } from '../generated/prisma/client.ts';
import type { Attribute, Product, ProductFamily, ProductFamilyImage, ProductImage } from '../generated/prisma/client.ts';
import { Conflict, isUniqueViolation, NotFound } from './errors.ts';
import { newId } from './ids.ts';
import { isCurrencyCode, toDecimal } from './money.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';
import { amount, count, countryCode, currencyCode, httpUrl, InputIssues, measure, optionalText, requiredText, textList } from './inputChecks.ts';

// ---------------------------------------------------------------- attribute values

const WEIGHT_UNITS: readonly WeightUnit[] = ['G', 'KG', 'LB', 'OZ'];
const DIMENSION_UNITS: readonly DimensionUnit[] = ['IN', 'CM'];
const DECIMAL_TEXT = /^\d{1,15}(\.\d{1,4})?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finiteNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * The stored form of an attribute value, checked against the attribute's type:
 * texts are strings, NUMBER a number, BOOLEAN a boolean, DATE `YYYY-MM-DD`, URL an
 * http(s) address, WEIGHT `{value, unit}`, DIMENSIONS `{length, width, height, unit}`,
 * MONEY `{amount, currency}` with the amount kept as an exact decimal string.
 */
export function attributeValue(issues: InputIssues, path: string, type: AttributeType, value: unknown): Prisma.InputJsonValue | undefined {
  const fail = (message: string) => {
    issues.add(path, `${type} value ${message}`);
    return undefined;
  };
  switch (type) {
    case 'SHORT_TEXT':
    case 'LONG_TEXT': {
      const max = type === 'SHORT_TEXT' ? 255 : 65_535;
      if (typeof value !== 'string') return fail('must be a string');
      if (value.length > max) return fail(`must be at most ${max} characters`);
      return value;
    }
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? value : fail('must be a number');
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : fail('must be true or false');
    case 'DATE': {
      if (typeof value !== 'string' || !ISO_DATE.test(value)) return fail('must be a date YYYY-MM-DD');
      const date = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value) ? value : fail(`${value} does not exist`);
    }
    case 'URL': {
      if (typeof value !== 'string') return fail('must be a string');
      const before = issues.list.length;
      httpUrl(issues, path, value);
      return issues.list.length === before ? value : undefined;
    }
    case 'WEIGHT':
      if (!isRecord(value) || !finiteNonNegative(value.value) || !WEIGHT_UNITS.includes(value.unit as WeightUnit)) {
        return fail(`must be {value: number >= 0, unit: ${WEIGHT_UNITS.join('|')}}`);
      }
      return { value: value.value, unit: value.unit as string };
    case 'DIMENSIONS': {
      const sides = ['length', 'width', 'height'] as const;
      if (!isRecord(value) || !DIMENSION_UNITS.includes(value.unit as DimensionUnit)) {
        return fail(`must be {length, width, height: number >= 0, unit: ${DIMENSION_UNITS.join('|')}}`);
      }
      const out: Record<string, number | string | null> = { unit: value.unit as string };
      for (const side of sides) {
        const v = value[side];
        if (v === undefined || v === null) out[side] = null;
        else if (finiteNonNegative(v)) out[side] = v;
        else return fail(`${side} must be a number >= 0`);
      }
      return out;
    }
    case 'MONEY': {
      if (!isRecord(value)) return fail('must be {amount, currency}');
      const raw = typeof value.amount === 'number' && Number.isFinite(value.amount) ? String(value.amount) : value.amount;
      if (typeof raw !== 'string' || !DECIMAL_TEXT.test(raw)) return fail('amount must be a decimal >= 0 with at most 4 fractional digits');
      if (typeof value.currency !== 'string' || !isCurrencyCode(value.currency)) return fail('currency must be an ISO 4217 code');
      return { amount: toDecimal(raw).toFixed(), currency: value.currency };
    }
  }
}

export interface AttributeValueInput {
  name: string;
  /** null (or left out) removes the value. */
  value?: unknown;
}

type AttributeOwner = { productId: string } | { familyId: string };

/** Checks values against their attributes' types; writes nothing. */
async function checkAttributeValues(
  tx: Tx,
  storeId: string,
  values: readonly AttributeValueInput[],
  path: string,
  issues: InputIssues,
): Promise<{ attribute: Attribute; value: Prisma.InputJsonValue | null }[]> {
  const names = values.map((v) => v.name.trim());
  const attributes = await tx.attribute.findMany({ where: { storeId, name: { in: names } } });
  const checked: { attribute: Attribute; value: Prisma.InputJsonValue | null }[] = [];
  values.forEach((entry, index) => {
    const name = names[index];
    const attribute = attributes.find((a) => a.name === name);
    if (names.indexOf(name) !== index) {
      issues.add(`${path}.${index}.name`, `attribute ${name} is given twice`);
    } else if (!attribute) {
      issues.add(`${path}.${index}.name`, `no attribute named "${name}"; create it with attributeCreate first`);
    } else if (entry.value === null || entry.value === undefined) {
      checked.push({ attribute, value: null });
    } else {
      const value = attributeValue(issues, `${path}.${index}.value`, attribute.type, entry.value);
      if (value !== undefined) checked.push({ attribute, value });
    }
  });
  return checked;
}

async function writeAttributeValues(tx: Tx, owner: AttributeOwner, values: { attribute: Attribute; value: Prisma.InputJsonValue | null }[]) {
  for (const { attribute, value } of values) {
    const where =
      'productId' in owner
        ? { attributeId_productId: { attributeId: attribute.id, productId: owner.productId } }
        : { attributeId_familyId: { attributeId: attribute.id, familyId: owner.familyId } };
    if (value === null) {
      await tx.attributeValue.deleteMany({ where: { attributeId: attribute.id, ...owner } });
    } else {
      await tx.attributeValue.upsert({
        where,
        create: { id: newId('attributeValue'), attributeId: attribute.id, ...owner, value },
        update: { value },
      });
    }
  }
}

// ---------------------------------------------------------------- attributes

export interface AttributeInput {
  name?: string | null;
  displayName?: string | null;
  description?: string | null;
  type?: AttributeType | null;
}

const MACHINE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export async function createAttribute(db: Db | Tx, storeId: string, input: AttributeInput): Promise<Attribute> {
  const issues = new InputIssues();
  const name = requiredText(issues, 'name', input.name, 64);
  if (name && !MACHINE_NAME.test(name)) issues.add('name', 'must be a machine name: a lower-case letter, then letters, digits or _');
  const displayName = requiredText(issues, 'displayName', input.displayName);
  const description = optionalText(issues, 'description', input.description, 2000);
  if (!input.type) issues.add('type', 'is required');
  issues.throwIfAny();
  return inTransaction(db, async (tx) => {
    const existing = await tx.attribute.findUnique({ where: { storeId_name: { storeId, name } } });
    if (existing) throw new Conflict(`an attribute named "${name}" already exists`, { path: 'name' });
    try {
      return await tx.attribute.create({
        data: { id: newId('attribute'), storeId, name, displayName, description: description ?? null, type: input.type! },
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new Conflict(`an attribute named "${name}" already exists`, { path: 'name' });
      throw error;
    }
  });
}

/** Name and type stay fixed: stored values and client lookups depend on them. */
export async function updateAttribute(db: Db | Tx, storeId: string, id: string, input: Pick<AttributeInput, 'displayName' | 'description'>): Promise<Attribute> {
  const issues = new InputIssues();
  const displayName = input.displayName === undefined ? undefined : requiredText(issues, 'displayName', input.displayName);
  const description = optionalText(issues, 'description', input.description, 2000);
  issues.throwIfAny();
  return inTransaction(db, async (tx) => {
    const attribute = await tx.attribute.findFirst({ where: { id, storeId } });
    if (!attribute) throw new NotFound(`attribute ${id} not found`, { path: 'id' });
    return tx.attribute.update({ where: { id }, data: { displayName, description } });
  });
}

// ---------------------------------------------------------------- products

export interface ProductOptionInput {
  name: string;
  value: string;
}

export interface ProductInput {
  title?: string | null;
  description?: string | null;
  sku?: string | null;
  upc?: string | null;
  barcodes?: string[] | null;
  vendor?: string | null;
  tags?: string[] | null;
  hsCode?: string | null;
  originCountry?: string | null;
  taxCode?: string | null;
  taxable?: boolean | null;
  physicalItem?: boolean | null;
  currency?: string | null;
  cost?: string | null;
  price?: string | null;
  dimensions?: { length?: number | null; width?: number | null; height?: number | null; unit: DimensionUnit } | null;
  weight?: { value: number; unit: WeightUnit } | null;
  productFamilyId?: string | null;
  options?: ProductOptionInput[] | null;
  attributes?: AttributeValueInput[] | null;
}

function notNull<T>(issues: InputIssues, path: string, value: T | null | undefined): T | undefined {
  if (value === null) issues.add(path, 'must not be null');
  return value ?? undefined;
}

/** The column values of a product input; undefined means "leave as it is". */
function productColumns(issues: InputIssues, input: ProductInput, creating: boolean) {
  const columns = {
    title: creating || input.title !== undefined ? requiredText(issues, 'title', input.title) : undefined,
    description: notNull(issues, 'description', input.description)?.trim(),
    sku: optionalText(issues, 'sku', input.sku, 100),
    upc: optionalText(issues, 'upc', input.upc, 32),
    barcodes: textList(issues, 'barcodes', input.barcodes),
    vendor: optionalText(issues, 'vendor', input.vendor),
    tags: textList(issues, 'tags', input.tags),
    hsCode: optionalText(issues, 'hsCode', input.hsCode, 16),
    originCountry: countryCode(issues, 'originCountry', input.originCountry),
    taxCode: optionalText(issues, 'taxCode', input.taxCode, 64),
    taxable: notNull(issues, 'taxable', input.taxable),
    physicalItem: notNull(issues, 'physicalItem', input.physicalItem),
    currency: currencyCode(issues, 'currency', notNull(issues, 'currency', input.currency)),
    cost: amount(issues, 'cost', input.cost),
    price: amount(issues, 'price', input.price),
    length: undefined as number | null | undefined,
    width: undefined as number | null | undefined,
    height: undefined as number | null | undefined,
    dimensionUnit: undefined as DimensionUnit | null | undefined,
    weightValue: undefined as number | null | undefined,
    weightUnit: undefined as WeightUnit | null | undefined,
  };
  if (input.dimensions !== undefined) {
    const d = input.dimensions;
    columns.length = measure(issues, 'dimensions.length', d?.length);
    columns.width = measure(issues, 'dimensions.width', d?.width);
    columns.height = measure(issues, 'dimensions.height', d?.height);
    columns.dimensionUnit = d ? d.unit : null;
  }
  if (input.weight !== undefined) {
    columns.weightValue = input.weight ? measure(issues, 'weight.value', input.weight.value) : null;
    columns.weightUnit = input.weight ? input.weight.unit : null;
  }
  return columns;
}

/** The option values of a variant: one value, from the option's allowed values, for every option of its family. */
async function checkOptionValues(
  tx: Tx,
  familyId: string | null,
  options: readonly ProductOptionInput[],
  issues: InputIssues,
): Promise<{ optionId: string; value: string }[]> {
  if (!familyId) {
    if (options.length > 0) issues.add('options', 'a product needs a productFamilyId to have option values');
    return [];
  }
  const familyOptions = await tx.productFamilyOption.findMany({ where: { familyId }, orderBy: { position: 'asc' } });
  const chosen: { optionId: string; value: string }[] = [];
  options.forEach((entry, index) => {
    const option = familyOptions.find((o) => o.name === entry.name.trim());
    if (!option) {
      issues.add(`options.${index}.name`, `the family has no option named "${entry.name}"`);
    } else if (chosen.some((c) => c.optionId === option.id)) {
      issues.add(`options.${index}.name`, `option ${option.name} is given twice`);
    } else if (!option.values.includes(entry.value.trim())) {
      issues.add(`options.${index}.value`, `"${entry.value}" is not a value of option ${option.name} (${option.values.join(', ')})`);
    } else {
      chosen.push({ optionId: option.id, value: entry.value.trim() });
    }
  });
  const missing = familyOptions.filter((o) => !options.some((entry) => entry.name.trim() === o.name));
  if (missing.length > 0) issues.add('options', `a value is required for every option of the family; missing: ${missing.map((o) => o.name).join(', ')}`);
  return chosen;
}

export async function checkUniqueSku(tx: Tx, storeId: string, sku: string | null | undefined, productId?: string) {
  if (!sku) return;
  const other = await tx.product.findFirst({ where: { storeId, sku, ...(productId ? { NOT: { id: productId } } : {}) }, select: { id: true } });
  if (other) throw new Conflict(`SKU ${sku} is already used by product ${other.id}`, { path: 'sku' });
}

async function checkFamily(tx: Tx, storeId: string, familyId: string, issues: InputIssues): Promise<boolean> {
  const family = await tx.productFamily.findFirst({ where: { id: familyId, storeId }, select: { id: true } });
  if (!family) issues.add('productFamilyId', `product family ${familyId} not found`);
  return Boolean(family);
}

export async function createProduct(db: Db | Tx, storeId: string, input: ProductInput): Promise<Product> {
  return inTransaction(db, async (tx) => {
    const issues = new InputIssues();
    const columns = productColumns(issues, input, true);
    const familyId = input.productFamilyId ?? null;
    const familyOk = familyId ? await checkFamily(tx, storeId, familyId, issues) : true;
    const options = familyOk ? await checkOptionValues(tx, familyId, input.options ?? [], issues) : [];
    const attributes = await checkAttributeValues(tx, storeId, input.attributes ?? [], 'attributes', issues);
    issues.throwIfAny();
    await checkUniqueSku(tx, storeId, columns.sku);
    const store = await tx.store.findUniqueOrThrow({ where: { id: storeId }, select: { currency: true } });
    const id = newId('product');
    const product = await tx.product.create({
      data: {
        ...columns,
        title: columns.title!,
        currency: columns.currency ?? store.currency,
        id,
        storeId,
        familyId,
        options: { create: options },
      },
    });
    await writeAttributeValues(tx, { productId: id }, attributes);
    return product;
  });
}

export async function updateProduct(db: Db | Tx, storeId: string, id: string, input: ProductInput): Promise<Product> {
  return inTransaction(db, async (tx) => {
    const product = await tx.product.findFirst({ where: { id, storeId } });
    if (!product) throw new NotFound(`product ${id} not found`, { path: 'id' });
    const issues = new InputIssues();
    const columns = productColumns(issues, input, false);
    const familyChanged = input.productFamilyId !== undefined && input.productFamilyId !== product.familyId;
    const familyId = input.productFamilyId === undefined ? product.familyId : input.productFamilyId;
    const familyOk = familyChanged && familyId ? await checkFamily(tx, storeId, familyId, issues) : true;
    // A new family needs the variant's values for its options; the old family's values go with it.
    const options =
      familyOk && (familyChanged || (input.options !== undefined && input.options !== null))
        ? await checkOptionValues(tx, familyId, input.options ?? [], issues)
        : undefined;
    if (input.options === null) issues.add('options', 'must be a list');
    const attributes = await checkAttributeValues(tx, storeId, input.attributes ?? [], 'attributes', issues);
    issues.throwIfAny();
    await checkUniqueSku(tx, storeId, columns.sku, id);
    if (options) {
      await tx.productOptionValue.deleteMany({ where: { productId: id } });
      if (options.length > 0) await tx.productOptionValue.createMany({ data: options.map((o) => ({ ...o, productId: id })) });
    }
    await writeAttributeValues(tx, { productId: id }, attributes);
    return tx.product.update({ where: { id }, data: { ...columns, familyId } });
  });
}

// ---------------------------------------------------------------- product families

export interface FamilyOptionInput {
  name: string;
  values: string[];
}

export interface ProductFamilyInput {
  title?: string | null;
  description?: string | null;
  vendor?: string | null;
  tags?: string[] | null;
  /** The complete, ordered list of options; positions follow the order given. */
  options?: FamilyOptionInput[] | null;
  attributes?: AttributeValueInput[] | null;
}

export function checkFamilyOptions(issues: InputIssues, options: readonly FamilyOptionInput[]): FamilyOptionInput[] {
  const names: string[] = [];
  return options.map((option, index) => {
    const name = requiredText(issues, `options.${index}.name`, option.name, 100);
    if (names.includes(name.toLowerCase())) issues.add(`options.${index}.name`, `option "${name}" is given twice`);
    names.push(name.toLowerCase());
    const values = textList(issues, `options.${index}.values`, option.values, 100) ?? [];
    if (values.length === 0) issues.add(`options.${index}.values`, 'must have at least one value');
    return { name, values };
  });
}

/** Replaces the family's options by `options`; values or options still used by a variant cannot go. */
export async function writeFamilyOptions(tx: Tx, familyId: string, options: FamilyOptionInput[]) {
  const existing = await tx.productFamilyOption.findMany({
    where: { familyId },
    include: { optionValues: { select: { value: true, productId: true } } },
  });
  const issues = new InputIssues();
  for (const option of existing) {
    const kept = options.find((o) => o.name === option.name);
    const dropped = option.optionValues.filter((v) => !kept || !kept.values.includes(v.value));
    if (dropped.length > 0) {
      const what = kept ? `value "${dropped[0].value}" of option ${option.name}` : `option ${option.name}`;
      issues.add('options', `${what} is used by product ${dropped[0].productId}; change that variant first`);
    }
  }
  if (issues.list.length > 0) throw new Conflict(issues.list[0].message, { path: 'options', issues: issues.list });
  await tx.productFamilyOption.deleteMany({ where: { familyId, name: { notIn: options.map((o) => o.name) } } });
  for (const [position, option] of options.entries()) {
    const current = existing.find((o) => o.name === option.name);
    if (current) {
      await tx.productFamilyOption.update({ where: { id: current.id }, data: { position, values: option.values } });
    } else {
      await tx.productFamilyOption.create({ data: { id: newId('productFamilyOption'), familyId, name: option.name, position, values: option.values } });
    }
  }
}

function familyColumns(issues: InputIssues, input: ProductFamilyInput, creating: boolean) {
  return {
    title: creating || input.title !== undefined ? requiredText(issues, 'title', input.title) : undefined,
    description: notNull(issues, 'description', input.description)?.trim(),
    vendor: optionalText(issues, 'vendor', input.vendor),
    tags: textList(issues, 'tags', input.tags),
  };
}

export async function createProductFamily(db: Db | Tx, storeId: string, input: ProductFamilyInput): Promise<ProductFamily> {
  return inTransaction(db, async (tx) => {
    const issues = new InputIssues();
    const columns = familyColumns(issues, input, true);
    const options = checkFamilyOptions(issues, input.options ?? []);
    const attributes = await checkAttributeValues(tx, storeId, input.attributes ?? [], 'attributes', issues);
    issues.throwIfAny();
    const id = newId('productFamily');
    const family = await tx.productFamily.create({ data: { ...columns, title: columns.title!, id, storeId } });
    await writeFamilyOptions(tx, id, options);
    await writeAttributeValues(tx, { familyId: id }, attributes);
    return family;
  });
}

export async function updateProductFamily(db: Db | Tx, storeId: string, id: string, input: ProductFamilyInput): Promise<ProductFamily> {
  return inTransaction(db, async (tx) => {
    const family = await tx.productFamily.findFirst({ where: { id, storeId }, select: { id: true } });
    if (!family) throw new NotFound(`product family ${id} not found`, { path: 'id' });
    const issues = new InputIssues();
    const columns = familyColumns(issues, input, false);
    if (input.options === null) issues.add('options', 'must be a list (use [] to remove every option)');
    const options = input.options ? checkFamilyOptions(issues, input.options) : undefined;
    const attributes = await checkAttributeValues(tx, storeId, input.attributes ?? [], 'attributes', issues);
    issues.throwIfAny();
    if (options) await writeFamilyOptions(tx, id, options);
    await writeAttributeValues(tx, { familyId: id }, attributes);
    return tx.productFamily.update({ where: { id }, data: columns });
  });
}

// ---------------------------------------------------------------- images

export interface ImageInput {
  url?: string | null;
  altText?: string | null;
  /** 0 is the default image; positions stay 0..n-1 and others move to make room. */
  position?: number | null;
}

/** The image rows of one owner, whichever table holds them. */
interface ImageTable<Row extends { id: string; position: number }> {
  list(tx: Tx, ownerId: string): Promise<Row[]>;
  create(tx: Tx, ownerId: string, data: { id: string; url: string; altText: string; position: number }): Promise<Row>;
  update(tx: Tx, id: string, data: { url?: string; altText?: string; position?: number }): Promise<Row>;
  remove(tx: Tx, id: string): Promise<void>;
}

const productImages: ImageTable<ProductImage> = {
  list: (tx, productId) => tx.productImage.findMany({ where: { productId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] }),
  create: (tx, productId, data) => tx.productImage.create({ data: { ...data, productId } }),
  update: (tx, id, data) => tx.productImage.update({ where: { id }, data }),
  remove: async (tx, id) => {
    await tx.productImage.delete({ where: { id } });
  },
};

const familyImages: ImageTable<ProductFamilyImage> = {
  list: (tx, familyId) => tx.productFamilyImage.findMany({ where: { familyId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] }),
  create: (tx, familyId, data) => tx.productFamilyImage.create({ data: { ...data, familyId } }),
  update: (tx, id, data) => tx.productFamilyImage.update({ where: { id }, data }),
  remove: async (tx, id) => {
    await tx.productFamilyImage.delete({ where: { id } });
  },
};

/** Writes positions 0..n-1 in the given order, touching only rows that moved. */
async function renumber<Row extends { id: string; position: number }>(tx: Tx, table: ImageTable<Row>, ordered: Row[]) {
  for (const [position, row] of ordered.entries()) {
    if (row.position !== position) await table.update(tx, row.id, { position });
  }
}

function checkImageInput(issues: InputIssues, input: ImageInput, creating: boolean) {
  let url: string | null | undefined;
  if (creating || input.url !== undefined) {
    if (!input.url?.trim()) issues.add('url', 'is required');
    else url = httpUrl(issues, 'url', input.url);
  }
  const altText = input.altText === undefined ? undefined : (input.altText ?? '').trim();
  if (altText && altText.length > 512) issues.add('altText', 'must be at most 512 characters');
  if (input.position !== undefined && input.position !== null) count(issues, 'position', input.position, 0, 10_000);
  return { url: url ?? undefined, altText };
}

async function addImage<Row extends { id: string; position: number }>(tx: Tx, table: ImageTable<Row>, ownerId: string, input: ImageInput): Promise<Row> {
  const issues = new InputIssues();
  const { url, altText } = checkImageInput(issues, input, true);
  issues.throwIfAny();
  const images = await table.list(tx, ownerId);
  const position = Math.min(input.position ?? images.length, images.length);
  const created = await table.create(tx, ownerId, { id: newId('productImage'), url: url!, altText: altText ?? '', position: images.length });
  const ordered = [...images];
  ordered.splice(position, 0, created);
  await renumber(tx, table, ordered);
  return position === images.length ? created : table.update(tx, created.id, {});
}

async function changeImage<Row extends { id: string; position: number }>(tx: Tx, table: ImageTable<Row>, ownerId: string, id: string, input: ImageInput): Promise<Row> {
  const issues = new InputIssues();
  const { url, altText } = checkImageInput(issues, input, false);
  issues.throwIfAny();
  const images = await table.list(tx, ownerId);
  const current = images.find((image) => image.id === id)!;
  if (input.position !== undefined && input.position !== null) {
    const ordered = images.filter((image) => image.id !== id);
    ordered.splice(Math.min(input.position, ordered.length), 0, current);
    await renumber(tx, table, ordered);
  }
  return table.update(tx, id, { url, altText });
}

async function removeImage<Row extends { id: string; position: number }>(tx: Tx, table: ImageTable<Row>, ownerId: string, id: string): Promise<void> {
  await table.remove(tx, id);
  await renumber(tx, table, await table.list(tx, ownerId));
}

async function ownedProduct(tx: Tx, storeId: string, productId: string, path: string) {
  const product = await tx.product.findFirst({ where: { id: productId, storeId }, select: { id: true } });
  if (!product) throw new NotFound(`product ${productId} not found`, { path });
}

async function ownedFamily(tx: Tx, storeId: string, familyId: string, path: string) {
  const family = await tx.productFamily.findFirst({ where: { id: familyId, storeId }, select: { id: true } });
  if (!family) throw new NotFound(`product family ${familyId} not found`, { path });
}

async function ownedProductImage(tx: Tx, storeId: string, id: string): Promise<ProductImage> {
  const image = await tx.productImage.findFirst({ where: { id, product: { storeId } } });
  if (!image) throw new NotFound(`product image ${id} not found`, { path: 'id' });
  return image;
}

async function ownedFamilyImage(tx: Tx, storeId: string, id: string): Promise<ProductFamilyImage> {
  const image = await tx.productFamilyImage.findFirst({ where: { id, family: { storeId } } });
  if (!image) throw new NotFound(`product family image ${id} not found`, { path: 'id' });
  return image;
}

export function addProductImage(db: Db | Tx, storeId: string, productId: string, input: ImageInput): Promise<ProductImage> {
  return inTransaction(db, async (tx) => {
    await ownedProduct(tx, storeId, productId, 'productId');
    return addImage(tx, productImages, productId, input);
  });
}

export function updateProductImage(db: Db | Tx, storeId: string, id: string, input: ImageInput): Promise<ProductImage> {
  return inTransaction(db, async (tx) => {
    const image = await ownedProductImage(tx, storeId, id);
    return changeImage(tx, productImages, image.productId, id, input);
  });
}

/** Deletes the image and returns the product it belonged to. */
export function deleteProductImage(db: Db | Tx, storeId: string, id: string): Promise<Product> {
  return inTransaction(db, async (tx) => {
    const image = await ownedProductImage(tx, storeId, id);
    await removeImage(tx, productImages, image.productId, id);
    return tx.product.update({ where: { id: image.productId }, data: { updatedAt: new Date() } });
  });
}

export function addProductFamilyImage(db: Db | Tx, storeId: string, familyId: string, input: ImageInput): Promise<ProductFamilyImage> {
  return inTransaction(db, async (tx) => {
    await ownedFamily(tx, storeId, familyId, 'productFamilyId');
    return addImage(tx, familyImages, familyId, input);
  });
}

export function updateProductFamilyImage(db: Db | Tx, storeId: string, id: string, input: ImageInput): Promise<ProductFamilyImage> {
  return inTransaction(db, async (tx) => {
    const image = await ownedFamilyImage(tx, storeId, id);
    return changeImage(tx, familyImages, image.familyId, id, input);
  });
}

/** Deletes the image and returns the family it belonged to. */
export function deleteProductFamilyImage(db: Db | Tx, storeId: string, id: string): Promise<ProductFamily> {
  return inTransaction(db, async (tx) => {
    const image = await ownedFamilyImage(tx, storeId, id);
    await removeImage(tx, familyImages, image.familyId, id);
    return tx.productFamily.update({ where: { id: image.familyId }, data: { updatedAt: new Date() } });
  });
}

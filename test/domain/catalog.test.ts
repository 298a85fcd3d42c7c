// Catalogue rules below the schema: attribute values normalised by type (exact
// money amounts, no floats), family option changes that keep variants consistent,
// and a product's family change requiring the new family's option values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { attributeValue, createProduct, createProductFamily, updateProduct, updateProductFamily } from '../../src/domain/catalog.ts';
import { InputIssues } from '../../src/domain/inputChecks.ts';
import { Conflict, Invalid } from '../../src/domain/errors.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';

describe('attributeValue', () => {
  const check = (type: Parameters<typeof attributeValue>[2], value: unknown) => {
    const issues = new InputIssues();
    const stored = attributeValue(issues, 'value', type, value);
    return { stored, issues: issues.list };
  };

  it('keeps money amounts exact, as decimal strings', () => {
    expect(check('MONEY', { amount: 0.1, currency: 'USD' }).stored).toEqual({ amount: '0.1', currency: 'USD' });
    expect(check('MONEY', { amount: '19.9900', currency: 'EUR' }).stored).toEqual({ amount: '19.99', currency: 'EUR' });
    expect(check('MONEY', { amount: '-1', currency: 'EUR' }).issues).toHaveLength(1);
    expect(check('MONEY', { amount: '1', currency: 'euro' }).issues).toHaveLength(1);
  });

  it('normalises dimensions and refuses unknown units', () => {
    expect(check('DIMENSIONS', { length: 2, unit: 'CM' }).stored).toEqual({ length: 2, width: null, height: null, unit: 'CM' });
    expect(check('WEIGHT', { value: 1, unit: 'ST' }).issues[0]).toMatchObject({ path: 'value', message: expect.stringContaining('WEIGHT') });
  });

  it('refuses calendar dates that do not exist and texts over their length', () => {
    expect(check('DATE', '2026-02-29').issues).toHaveLength(1);
    expect(check('DATE', '2028-02-29').stored).toBe('2028-02-29');
    expect(check('SHORT_TEXT', 'x'.repeat(256)).issues).toHaveLength(1);
    expect(check('LONG_TEXT', 'x'.repeat(256)).stored).toHaveLength(256);
  });
});

describe('families and variants', () => {
  let db: Database;
  let storeId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    storeId = (await createStore(db.prisma, { name: 'Store' })).id;
  });
  afterAll(async () => db?.close());

  it('requires the new family’s option values when a variant changes family, and drops the old ones', async () => {
    const shirts = await createProductFamily(db.prisma, storeId, { title: 'Shirts', options: [{ name: 'Size', values: ['S', 'M'] }] });
    const mugs = await createProductFamily(db.prisma, storeId, { title: 'Mugs', options: [{ name: 'Volume', values: ['300ml'] }] });
    const product = await createProduct(db.prisma, storeId, { title: 'Thing', productFamilyId: shirts.id, options: [{ name: 'Size', value: 'S' }] });
    await expect(updateProduct(db.prisma, storeId, product.id, { productFamilyId: mugs.id })).rejects.toBeInstanceOf(Invalid);
    await updateProduct(db.prisma, storeId, product.id, { productFamilyId: mugs.id, options: [{ name: 'Volume', value: '300ml' }] });
    const values = await db.prisma.productOptionValue.findMany({ where: { productId: product.id }, include: { option: true } });
    expect(values.map((v) => [v.option.name, v.value])).toEqual([['Volume', '300ml']]);
    await updateProduct(db.prisma, storeId, product.id, { productFamilyId: null });
    expect(await db.prisma.productOptionValue.count({ where: { productId: product.id } })).toBe(0);
  });

  it('keeps option ids across a reorder, and refuses to drop an option in use', async () => {
    const family = await createProductFamily(db.prisma, storeId, {
      title: 'Caps',
      options: [
        { name: 'Colour', values: ['Red'] },
        { name: 'Fit', values: ['Snug', 'Loose'] },
      ],
    });
    const before = await db.prisma.productFamilyOption.findMany({ where: { familyId: family.id } });
    await createProduct(db.prisma, storeId, { title: 'Cap', productFamilyId: family.id, options: [{ name: 'Colour', value: 'Red' }, { name: 'Fit', value: 'Snug' }] });
    await updateProductFamily(db.prisma, storeId, family.id, { options: [{ name: 'Fit', values: ['Snug'] }, { name: 'Colour', values: ['Red', 'Blue'] }] });
    const after = await db.prisma.productFamilyOption.findMany({ where: { familyId: family.id }, orderBy: { position: 'asc' } });
    expect(after.map((o) => [o.name, o.position, o.values])).toEqual([
      ['Fit', 0, ['Snug']],
      ['Colour', 1, ['Red', 'Blue']],
    ]);
    expect(after.map((o) => o.id).sort()).toEqual(before.map((o) => o.id).sort());
    await expect(updateProductFamily(db.prisma, storeId, family.id, { options: [{ name: 'Colour', values: ['Red'] }] })).rejects.toBeInstanceOf(Conflict);
  });
});

// The catalogue through v3: every field of Product, ProductFamily, Attribute and
// images; option order by family positions; attribute values typed by their type;
// and every catalogue mutation's happy path and refusals (nothing written on a refusal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { query, seedCatalog, type Catalog, type UserErrors } from './fixtures.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let catalog: Catalog;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
  catalog = await seedCatalog(server.db, store.storeId);
});
afterAll(async () => server?.close());

async function mutate<T extends UserErrors>(document: string, variables: Record<string, unknown>, secret = store.secret): Promise<T> {
  const data = await query<Record<string, T>>(server, secret, document, variables);
  return Object.values(data)[0];
}

const PRODUCT_FIELDS = `id title description sku upc barcodes vendor tags hsCode originCountry taxCode taxable physicalItem
  cost { amount currency } price { amount currency } dimensions { length width height unit } weight { value unit }
  options { name value } attributes { id name displayName description type value } createdAt updatedAt`;

const CREATE_PRODUCT = `mutation($input: ProductInput!) { productCreate(input: $input) { product { ${PRODUCT_FIELDS} } userErrors { code field message } } }`;
const UPDATE_PRODUCT = `mutation($id: ID!, $input: ProductInput!) { productUpdate(id: $id, input: $input) { product { ${PRODUCT_FIELDS} } userErrors { code field message } } }`;

describe('Product', () => {
  it('exposes every catalogue field with options ordered by the family positions', async () => {
    const data = await query<{ product: Record<string, unknown> }>(
      server,
      store.secret,
      `query($id: ID!) { product(id: $id) { ${PRODUCT_FIELDS} productFamily { id title } image { id } images(first: 5) { nodes { id } } } }`,
      { id: catalog.productIds[0] },
    );
    expect(data.product).toMatchObject({
      id: catalog.productIds[0],
      title: 'Tee Red S',
      description: '',
      sku: 'TEE-RED-S',
      upc: null,
      barcodes: [],
      tags: [],
      taxable: true,
      physicalItem: true,
      cost: { amount: '9.50', currency: 'USD' },
      price: { amount: '25.00', currency: 'USD' },
      dimensions: { length: 30, width: 25, height: 2, unit: 'CM' },
      weight: { value: 180, unit: 'G' },
      // Created as Size then Colour: the family's positions decide.
      options: [
        { name: 'Colour', value: 'Red' },
        { name: 'Size', value: 'S' },
      ],
      attributes: [{ name: 'shipping_weight', displayName: 'Shipping weight', description: null, type: 'WEIGHT', value: { value: 200, unit: 'G' } }],
      productFamily: { id: catalog.familyId, title: 'Tee' },
      image: null,
      images: { nodes: [] },
    });
  });

  it('follows the family when its options are reordered', async () => {
    const reorder = await mutate(
      `mutation($id: ID!, $input: ProductFamilyInput!) { productFamilyUpdate(id: $id, input: $input) { productFamily { options { name position values } } userErrors { code field message } } }`,
      { id: catalog.familyId, input: { options: [{ name: 'Size', values: ['S', 'M'] }, { name: 'Colour', values: ['Red', 'Blue'] }] } },
    );
    expect(reorder.userErrors).toEqual([]);
    const data = await query<{ product: { options: unknown[] } }>(server, store.secret, `query($id: ID!) { product(id: $id) { options { name value } } }`, {
      id: catalog.productIds[3],
    });
    expect(data.product.options).toEqual([
      { name: 'Size', value: 'M' },
      { name: 'Colour', value: 'Blue' },
    ]);
    await mutate(`mutation($id: ID!, $input: ProductFamilyInput!) { productFamilyUpdate(id: $id, input: $input) { userErrors { code } } }`, {
      id: catalog.familyId,
      input: { options: [{ name: 'Colour', values: ['Red', 'Blue'] }, { name: 'Size', values: ['S', 'M'] }] },
    });
  });

  it('looks attributes up by machine name: the value, null when unset, no attribute when unknown', async () => {
    const data = await query<{ product: Record<string, { value: unknown; type: string } | null> }>(
      server,
      store.secret,
      `query($id: ID!) { product(id: $id) {
        weight: attribute(name: "shipping_weight") { type value }
        care: attribute(name: "care") { type value }
        missing: attribute(name: "nope") { type value } } }`,
      { id: catalog.productIds[1] },
    );
    expect(data.product).toEqual({ weight: { type: 'WEIGHT', value: { value: 200, unit: 'G' } }, care: { type: 'SHORT_TEXT', value: null }, missing: null });
  });

  it('is found by node(id:) and is invisible to another store', async () => {
    const mine = await query<{ node: { id: string; title: string } }>(server, store.secret, `query($id: ID!) { node(id: $id) { id ... on Product { title } } }`, {
      id: catalog.productIds[0],
    });
    expect(mine.node).toEqual({ id: catalog.productIds[0], title: 'Tee Red S' });
    const theirs = await query<{ node: unknown; product: unknown; products: { nodes: unknown[] } }>(
      server,
      other.secret,
      `query($id: ID!) { node(id: $id) { id } product(id: $id) { id } products { nodes { id } } }`,
      { id: catalog.productIds[0] },
    );
    expect(theirs).toEqual({ node: null, product: null, products: { nodes: [] } });
  });
});

describe('product mutations', () => {
  it('creates a variant with every field and updates it (null clears, left out stays)', async () => {
    const created = await mutate<UserErrors & { product: Record<string, unknown> }>(CREATE_PRODUCT, {
      input: {
        title: ' Tee Red L ',
        description: 'Heavy cotton',
        sku: 'TEE-RED-L',
        upc: '012345678905',
        barcodes: ['012345678905', '012345678905', 'X1'],
        vendor: 'Knit Co',
        tags: ['apparel'],
        hsCode: '610910',
        originCountry: 'pt',
        taxCode: 'P0000000',
        taxable: false,
        physicalItem: true,
        currency: 'EUR',
        cost: '7.125',
        price: 30,
        dimensions: { length: 31, unit: 'CM' },
        weight: { value: 0.2, unit: 'KG' },
        productFamilyId: catalog.familyId,
        options: [
          { name: 'Colour', value: 'Red' },
          { name: 'Size', value: 'M' },
        ],
        attributes: [{ name: 'care', value: 'Wash cold' }],
      },
    });
    expect(created.userErrors).toEqual([]);
    expect(created.product).toMatchObject({
      title: 'Tee Red L',
      barcodes: ['012345678905', 'X1'],
      originCountry: 'PT',
      taxable: false,
      cost: { amount: '7.125', currency: 'EUR' },
      price: { amount: '30.00', currency: 'EUR' },
      dimensions: { length: 31, width: null, height: null, unit: 'CM' },
      weight: { value: 0.2, unit: 'KG' },
      attributes: [{ name: 'care', value: 'Wash cold' }],
    });
    const id = created.product.id as string;
    const updated = await mutate<UserErrors & { product: Record<string, unknown> }>(UPDATE_PRODUCT, {
      id,
      input: { vendor: null, price: '31.5', weight: null, attributes: [{ name: 'care', value: null }, { name: 'shipping_weight', value: { value: 9, unit: 'OZ' } }] },
    });
    expect(updated.userErrors).toEqual([]);
    expect(updated.product).toMatchObject({
      title: 'Tee Red L',
      vendor: null,
      sku: 'TEE-RED-L',
      price: { amount: '31.50', currency: 'EUR' },
      weight: null,
      attributes: [{ name: 'shipping_weight', value: { value: 9, unit: 'OZ' } }],
    });
  });

  it.each([
    ['an empty title', { title: '  ' }, 'INVALID', ['input', 'title']],
    ['a negative price', { title: 'X', price: '-1' }, 'INVALID', ['input', 'price']],
    ['an unknown currency', { title: 'X', currency: 'EURO' }, 'INVALID', ['input', 'currency']],
    ['a bad country', { title: 'X', originCountry: 'Portugal' }, 'INVALID', ['input', 'originCountry']],
    ['a negative weight', { title: 'X', weight: { value: -1, unit: 'G' } }, 'INVALID', ['input', 'weight', 'value']],
    ['an unknown family', { title: 'X', productFamilyId: 'pfm_nope' }, 'INVALID', ['input', 'productFamilyId']],
    ['options without a family', { title: 'X', options: [{ name: 'Colour', value: 'Red' }] }, 'INVALID', ['input', 'options']],
    ['a value outside the option', { title: 'X', productFamilyId: 'FAMILY', options: [{ name: 'Colour', value: 'Green' }, { name: 'Size', value: 'S' }] }, 'INVALID', ['input', 'options', '0', 'value']],
    ['a missing option', { title: 'X', productFamilyId: 'FAMILY', options: [{ name: 'Colour', value: 'Red' }] }, 'INVALID', ['input', 'options']],
    ['an unknown attribute', { title: 'X', attributes: [{ name: 'nope', value: 1 }] }, 'INVALID', ['input', 'attributes', '0', 'name']],
    ['a value of the wrong type', { title: 'X', attributes: [{ name: 'shipping_weight', value: '200g' }] }, 'INVALID', ['input', 'attributes', '0', 'value']],
    ['a SKU already used', { title: 'X', sku: 'TEE-RED-S' }, 'CONFLICT', ['input', 'sku']],
  ])('refuses %s and writes nothing', async (_what, input, code, field) => {
    const before = await rowCounts(server.db);
    const withFamily = 'productFamilyId' in input && input.productFamilyId === 'FAMILY' ? { ...input, productFamilyId: catalog.familyId } : input;
    const result = await mutate<UserErrors & { product: unknown }>(CREATE_PRODUCT, { input: withFamily });
    expect(result.product).toBeNull();
    expect(result.userErrors).toContainEqual(expect.objectContaining({ code, field }));
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('refuses another store’s product as NOT_FOUND', async () => {
    const result = await mutate<UserErrors & { product: unknown }>(UPDATE_PRODUCT, { id: catalog.productIds[0], input: { title: 'Mine now' } }, other.secret);
    expect(result).toEqual({ product: null, userErrors: [{ code: 'NOT_FOUND', field: ['id'], message: expect.any(String) }] });
  });
});

describe('attributes', () => {
  const CREATE = `mutation($input: AttributeCreateInput!) { attributeCreate(input: $input) { attribute { id name displayName type value } userErrors { code field message } } }`;

  it.each([
    ['SHORT_TEXT', 'Hello', 'Hello', 42],
    ['LONG_TEXT', 'A long text', 'A long text', { text: 'x' }],
    ['NUMBER', 12.5, 12.5, '12.5'],
    ['BOOLEAN', true, true, 'yes'],
    ['DATE', '2026-02-28', '2026-02-28', '2026-02-30'],
    ['URL', 'https://example.com/care', 'https://example.com/care', 'ftp://example.com'],
    ['WEIGHT', { value: 1.5, unit: 'KG' }, { value: 1.5, unit: 'KG' }, { value: 1.5, unit: 'TONNE' }],
    ['DIMENSIONS', { length: 1, width: 2, unit: 'IN' }, { length: 1, width: 2, height: null, unit: 'IN' }, { length: -1, unit: 'IN' }],
    ['MONEY', { amount: 12.5, currency: 'USD' }, { amount: '12.5', currency: 'USD' }, { amount: '1.23456', currency: 'USD' }],
  ])('%s values are typed: stored as given, refused when malformed', async (type, value, stored, bad) => {
    const name = `attr_${type.toLowerCase()}`;
    const created = await mutate<UserErrors & { attribute: { id: string; value: unknown } }>(CREATE, { input: { name, displayName: type, type } });
    expect(created.userErrors).toEqual([]);
    const set = await mutate<UserErrors & { productFamily: { attribute: { type: string; value: unknown } } }>(
      `mutation($id: ID!, $input: ProductFamilyInput!, $name: String!) { productFamilyUpdate(id: $id, input: $input) { productFamily { attribute(name: $name) { type value } } userErrors { code field message } } }`,
      { id: catalog.familyId, name, input: { attributes: [{ name, value }] } },
    );
    expect(set.userErrors).toEqual([]);
    expect(set.productFamily.attribute).toEqual({ type, value: stored });
    const refused = await mutate<UserErrors>(
      `mutation($id: ID!, $input: ProductFamilyInput!) { productFamilyUpdate(id: $id, input: $input) { userErrors { code field message } } }`,
      { id: catalog.familyId, input: { attributes: [{ name, value: bad }] } },
    );
    expect(refused.userErrors).toEqual([{ code: 'INVALID', field: ['input', 'attributes', '0', 'value'], message: expect.stringContaining(type) }]);
  });

  it('refuses a taken or malformed name and updates the display name', async () => {
    expect((await mutate<UserErrors>(CREATE, { input: { name: 'care', displayName: 'Again', type: 'SHORT_TEXT' } })).userErrors).toEqual([
      { code: 'CONFLICT', field: ['input', 'name'], message: expect.any(String) },
    ]);
    expect((await mutate<UserErrors>(CREATE, { input: { name: 'Care Label', displayName: 'X', type: 'SHORT_TEXT' } })).userErrors[0]).toMatchObject({
      code: 'INVALID',
      field: ['input', 'name'],
    });
    const updated = await mutate<UserErrors & { attribute: unknown }>(
      `mutation($id: ID!) { attributeUpdate(id: $id, input: { displayName: "Weight for shipping", description: "Packed" }) { attribute { name displayName description } userErrors { code } } }`,
      { id: catalog.weightAttributeId },
    );
    expect(updated).toEqual({ attribute: { name: 'shipping_weight', displayName: 'Weight for shipping', description: 'Packed' }, userErrors: [] });
  });

  it('lists the definitions and resolves one by node(id:) without a value', async () => {
    const data = await query<{ attributes: { nodes: { name: string }[] }; node: unknown }>(
      server,
      store.secret,
      `query($id: ID!) { attributes(first: 100, orderBy: NAME, reverse: true) { nodes { name } } node(id: $id) { ... on Attribute { name value } } }`,
      { id: catalog.weightAttributeId },
    );
    const names = data.attributes.nodes.map((a) => a.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('shipping_weight');
    expect(data.node).toEqual({ name: 'shipping_weight', value: null });
  });
});

describe('product families', () => {
  it('creates a family with options and attributes and lists its variants', async () => {
    const created = await mutate<UserErrors & { productFamily: { id: string } & Record<string, unknown> }>(
      `mutation($input: ProductFamilyInput!) { productFamilyCreate(input: $input) { productFamily { id title description vendor tags options { name position values } attributes { name value } products { nodes { id } } } userErrors { code field message } } }`,
      { input: { title: 'Hoodie', vendor: 'Knit Co', tags: ['winter'], options: [{ name: 'Size', values: ['M', 'L', 'M'] }], attributes: [{ name: 'care', value: 'Dry clean' }] } },
    );
    expect(created.userErrors).toEqual([]);
    expect(created.productFamily).toMatchObject({
      title: 'Hoodie',
      description: '',
      vendor: 'Knit Co',
      tags: ['winter'],
      options: [{ name: 'Size', position: 0, values: ['M', 'L'] }],
      attributes: [{ name: 'care', value: 'Dry clean' }],
      products: { nodes: [] },
    });
    const data = await query<{ productFamily: { products: { nodes: { id: string }[] } } }>(
      server,
      store.secret,
      `query($id: ID!) { productFamily(id: $id) { products(first: 10) { nodes { id } } } }`,
      { id: catalog.familyId },
    );
    // Oldest first: the seeded variants, then the one an earlier test added.
    expect(data.productFamily.products.nodes.map((p) => p.id).slice(0, 4)).toEqual(catalog.productIds);
  });

  it.each([
    ['an option without values', { options: [{ name: 'Fit', values: [] }] }, ['input', 'options', '0', 'values']],
    ['an option given twice', { options: [{ name: 'Fit', values: ['A'] }, { name: 'fit', values: ['B'] }] }, ['input', 'options', '1', 'name']],
    ['an empty title', { title: '' }, ['input', 'title']],
  ])('refuses %s', async (_what, input, field) => {
    const result = await mutate<UserErrors>(
      `mutation($input: ProductFamilyInput!) { productFamilyCreate(input: $input) { userErrors { code field message } } }`,
      { input: { title: 'Family', ...input } },
    );
    expect(result.userErrors).toContainEqual(expect.objectContaining({ code: 'INVALID', field }));
  });

  it('refuses to drop an option value a variant uses, and writes nothing', async () => {
    const before = await rowCounts(server.db);
    const result = await mutate<UserErrors>(
      `mutation($id: ID!, $input: ProductFamilyInput!) { productFamilyUpdate(id: $id, input: $input) { userErrors { code field message } } }`,
      { id: catalog.familyId, input: { title: 'Renamed', options: [{ name: 'Colour', values: ['Red'] }, { name: 'Size', values: ['S', 'M'] }] } },
    );
    expect(result.userErrors[0]).toMatchObject({ code: 'CONFLICT', field: ['input', 'options'], message: expect.stringContaining('Blue') });
    expect(await rowCounts(server.db)).toEqual(before);
    const family = await server.db.prisma.productFamily.findUniqueOrThrow({ where: { id: catalog.familyId } });
    expect(family.title).toBe('Tee');
  });
});

describe('images', () => {
  const IMAGE = `id url altText position default`;

  it('keeps positions 0..n-1, the first image being the default', async () => {
    const productId = catalog.productIds[2];
    const add = (input: Record<string, unknown>) =>
      mutate<UserErrors & { image: { id: string } }>(
        `mutation($productId: ID!, $input: ImageInput!) { productImageCreate(productId: $productId, input: $input) { image { ${IMAGE} } userErrors { code field message } } }`,
        { productId, input },
      );
    const a = await add({ url: 'https://img.example.com/a.jpg', altText: 'A' });
    const b = await add({ url: 'https://img.example.com/b.jpg' });
    const c = await add({ url: 'https://img.example.com/c.jpg', position: 0 });
    expect(c.image).toMatchObject({ position: 0, default: true });
    const images = async () =>
      (
        await query<{ product: { image: { id: string }; images: { nodes: { id: string; position: number; default: boolean }[] } } }>(
          server,
          store.secret,
          `query($id: ID!) { product(id: $id) { image { id } images(first: 10) { nodes { id position default } } } }`,
          { id: productId },
        )
      ).product;
    let current = await images();
    expect(current.image.id).toBe(c.image.id);
    expect(current.images.nodes.map((i) => [i.id, i.position, i.default])).toEqual([
      [c.image.id, 0, true],
      [a.image.id, 1, false],
      [b.image.id, 2, false],
    ]);
    const moved = await mutate<UserErrors & { image: unknown }>(
      `mutation($id: ID!) { productImageUpdate(id: $id, input: { position: 0, altText: "B first" }) { image { ${IMAGE} } userErrors { code } } }`,
      { id: b.image.id },
    );
    expect(moved.image).toMatchObject({ position: 0, altText: 'B first', default: true });
    const deleted = await mutate<UserErrors & { deletedImageId: string; product: { images: { nodes: { id: string; position: number }[] } } }>(
      `mutation($id: ID!) { productImageDelete(id: $id) { deletedImageId product { images { nodes { id position } } } userErrors { code } } }`,
      { id: b.image.id },
    );
    expect(deleted.deletedImageId).toBe(b.image.id);
    expect(deleted.product.images.nodes).toEqual([
      { id: c.image.id, position: 0 },
      { id: a.image.id, position: 1 },
    ]);
    current = await images();
    expect(current.image.id).toBe(c.image.id);
    const node = await query<{ node: { url: string } }>(server, store.secret, `query($id: ID!) { node(id: $id) { ... on ProductImage { url } } }`, {
      id: a.image.id,
    });
    expect(node.node.url).toBe('https://img.example.com/a.jpg');
  });

  it('manages family images the same way', async () => {
    const created = await mutate<UserErrors & { image: { id: string } }>(
      `mutation($id: ID!) { productFamilyImageCreate(productFamilyId: $id, input: { url: "https://img.example.com/family.jpg" }) { image { ${IMAGE} } userErrors { code } } }`,
      { id: catalog.familyId },
    );
    expect(created.image).toMatchObject({ position: 0, default: true, altText: '' });
    const family = await query<{ productFamily: { image: { id: string }; images: { nodes: { id: string }[] } } }>(
      server,
      store.secret,
      `query($id: ID!) { productFamily(id: $id) { image { id } images { nodes { id } } } }`,
      { id: catalog.familyId },
    );
    expect(family.productFamily.image.id).toBe(created.image.id);
    const removed = await mutate<UserErrors & { productFamily: { images: { nodes: unknown[] } } }>(
      `mutation($id: ID!) { productFamilyImageDelete(id: $id) { productFamily { images { nodes { id } } } userErrors { code } } }`,
      { id: created.image.id },
    );
    expect(removed.productFamily.images.nodes).toEqual([]);
  });

  it.each([
    ['a missing URL', { altText: 'x' }, ['input', 'url']],
    ['a non-http URL', { url: 'javascript:alert(1)' }, ['input', 'url']],
    ['a negative position', { url: 'https://img.example.com/x.jpg', position: -1 }, ['input', 'position']],
  ])('refuses %s', async (_what, input, field) => {
    const result = await mutate<UserErrors>(
      `mutation($productId: ID!, $input: ImageInput!) { productImageCreate(productId: $productId, input: $input) { userErrors { code field message } } }`,
      { productId: catalog.productIds[0], input },
    );
    expect(result.userErrors).toContainEqual(expect.objectContaining({ code: 'INVALID', field }));
  });

  it('refuses an unknown product and another store’s image as NOT_FOUND', async () => {
    const unknown = await mutate<UserErrors>(
      `mutation { productImageCreate(productId: "prd_nope", input: { url: "https://img.example.com/x.jpg" }) { userErrors { code field } } }`,
      {},
    );
    expect(unknown.userErrors).toEqual([{ code: 'NOT_FOUND', field: ['productId'] }]);
    const image = await server.db.prisma.productImage.findFirstOrThrow({ where: { product: { storeId: store.storeId } } });
    const result = await graphql(server, other.secret, `mutation($id: ID!) { productImageDelete(id: $id) { deletedImageId userErrors { code field } } }`, { id: image.id });
    expect(result.data).toEqual({ productImageDelete: { deletedImageId: null, userErrors: [{ code: 'NOT_FOUND', field: ['id'] }] } });
  });
});

// POST /stores/{storeId}/products/bulk-upload: families matched by product_family_id, then
// external_id, then variant SKU; each family written atomically with its own result; one
// upload per store at a time (409). Every answer is checked against the reference document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterAll(async () => server?.close());

const upload = (body: unknown, secret = store.secret, storeId = store.storeId) =>
  call(server, 'POST', `/v2.2/stores/${storeId}/products/bulk-upload`, { secret, body });

interface Answer {
  total_count: number;
  processed_count: number;
  error_count: number;
  results: { status: string; product_family_id?: string; products?: { id: string; sku: string }[]; error?: string }[];
}

const shoes = (suffix: string, overrides: Record<string, unknown> = {}) => ({
  title: 'Running Shoes',
  external_id: `EXT-SHOES-${suffix}`,
  vendor: 'Acme',
  tags: ['shoes'],
  options: [
    { name: 'Size', values: ['9', '10'] },
    { name: 'Color', values: ['Black', 'White'] },
  ],
  images: [{ url: 'https://example.com/shoes.jpg', alt_text: 'front' }],
  variants: [
    { sku: `SHOE-BLK-9-${suffix}`, price: 12999, currency: 'USD', option_values: ['9', 'Black'], weight: 1.2, weight_unit: 'kg' },
    { sku: `SHOE-WHT-10-${suffix}`, price: 12999, currency: 'USD', option_values: ['10', 'White'], external_id: `V-${suffix}` },
  ],
  ...overrides,
});

describe('POST /stores/{storeId}/products/bulk-upload', () => {
  it('creates families with their variants, options and images; prices from minor units', async () => {
    const res = await upload({ products: [shoes('a'), { title: 'Socks', kind: 'NON_SELLABLE', variants: [{ sku: 'SOCK-a', price: 1499, currency: 'JPY', weight: 0.002, weight_unit: 't' }] }] });
    expect(res.status).toBe(200);
    const answer = res.body as Answer;
    expect(answer).toMatchObject({ total_count: 2, processed_count: 2, error_count: 0 });
    expect(answer.results.map((r) => r.status)).toEqual(['created', 'created']);
    const [first, socks] = answer.results;
    const family = await server.db.prisma.productFamily.findUniqueOrThrow({
      where: { id: first.product_family_id! },
      include: { options: { orderBy: { position: 'asc' } }, images: true, products: { include: { options: true }, orderBy: { sku: 'asc' } } },
    });
    expect([family.externalId, family.kind, family.options.map((o) => o.name), family.images.map((i) => i.altText)]).toEqual(['EXT-SHOES-a', 'SELLABLE', ['Size', 'Color'], ['front']]);
    expect(family.products.map((p) => [p.sku, p.price?.toString(), p.options.length])).toEqual([
      ['SHOE-BLK-9-a', '129.99', 2],
      ['SHOE-WHT-10-a', '129.99', 2],
    ]);
    expect(first.products!.map((p) => p.sku).sort()).toEqual(['SHOE-BLK-9-a', 'SHOE-WHT-10-a']);
    const sock = await server.db.prisma.product.findUniqueOrThrow({ where: { id: socks.products![0].id }, include: { family: true } });
    expect([sock.price?.toString(), sock.currency, sock.weightValue, sock.weightUnit, sock.family?.kind]).toEqual(['1499', 'JPY', 2, 'KG', 'NON_SELLABLE']);
  });

  it('matches by product_family_id, then external_id, then SKU: updates, never duplicates', async () => {
    const created = ((await upload({ products: [shoes('b')] })).body as Answer).results[0];
    const families = await server.db.prisma.productFamily.count();
    const products = await server.db.prisma.product.count();
    const byId = await upload({ products: [shoes('b', { product_family_id: created.product_family_id, external_id: undefined, title: 'Renamed' })] });
    const byExternal = await upload({ products: [shoes('b', { title: 'Renamed again' })] });
    const bySku = await upload({ products: [shoes('b', { external_id: undefined, title: 'By SKU' })] });
    for (const res of [byId, byExternal, bySku]) {
      expect((res.body as Answer).results[0]).toMatchObject({ status: 'updated', product_family_id: created.product_family_id });
    }
    expect((byId.body as Answer).results[0].products!.map((p) => p.id).sort()).toEqual(created.products!.map((p) => p.id).sort());
    expect(await server.db.prisma.productFamily.count()).toBe(families);
    expect(await server.db.prisma.product.count()).toBe(products);
    expect((await server.db.prisma.productFamily.findUniqueOrThrow({ where: { id: created.product_family_id! } })).title).toBe('By SKU');
  });

  it('reports a family it refuses in its result and writes the others; a duplicate SKU in the request is refused', async () => {
    const res = await upload({
      products: [
        shoes('c'),
        { title: 'Dup', variants: [{ sku: 'SHOE-BLK-9-c', price: 1, currency: 'USD' }] },
        { title: 'Bad option', options: [{ name: 'Size', values: ['S'] }], variants: [{ sku: 'OPT-c', price: 1, currency: 'USD', option_values: ['XL'] }] },
        { title: 'Bad currency', variants: [{ sku: 'CUR-c', price: 1, currency: 'dollars' }] },
        { product_family_id: 'pfm_unknown', title: 'Unknown', variants: [{ sku: 'UNK-c', price: 1, currency: 'USD' }] },
      ],
    });
    expect(res.status).toBe(200);
    const answer = res.body as Answer;
    expect(answer).toMatchObject({ total_count: 5, processed_count: 1, error_count: 4 });
    expect(answer.results.map((r) => r.status)).toEqual(['created', 'error', 'error', 'error', 'error']);
    expect(answer.results[1].error).toContain('Duplicate SKU');
    expect(answer.results[2].error).toContain('"XL" is not a value of option Size');
    expect(answer.results[3].error).toContain('variants.0.currency');
    expect(answer.results[4].error).toContain('pfm_unknown not found');
    expect(await server.db.prisma.product.count({ where: { sku: { in: ['OPT-c', 'CUR-c', 'UNK-c'] } } })).toBe(0);
  });

  it('refuses a malformed body with 400 and writes nothing', async () => {
    const counts = await rowCounts(server.db);
    const variant = { sku: 'X', price: 1, currency: 'USD' };
    const bodies: [unknown, string][] = [
      [{}, 'products'],
      [{ products: [] }, 'products'],
      [{ products: [{ title: 'No variants', variants: [] }] }, 'products.0.variants'],
      [{ products: [{ title: 'Many', variants: Array.from({ length: 101 }, (_, i) => ({ ...variant, sku: `M-${i}` })) }] }, 'products.0.variants'],
      [{ products: [{ title: 'Price', variants: [{ ...variant, price: 1.5 }] }] }, 'products.0.variants.0.price'],
      [{ products: [{ variants: [variant] }] }, 'products.0.title'],
      [{ products: [{ title: 'Kind', kind: 'GIFT', variants: [variant] }] }, 'products.0.kind'],
    ];
    for (const [body, field] of bodies) {
      const res = await upload(body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect((res.body as { detail: string }).detail).toContain(field);
    }
    expect(await rowCounts(server.db)).toEqual(counts);
  });

  it('answers 409 while another upload of the store runs; other stores are not held up', async () => {
    const many = { products: Array.from({ length: 150 }, (_, i) => ({ title: `Item ${i}`, variants: [{ sku: `LOAD-${i}`, price: 100, currency: 'USD' }] })) };
    const running = upload(many);
    for (let i = 0; i < 200 && (await server.db.prisma.bulkOperationLock.count({ where: { storeId: store.storeId } })) === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const second = await upload({ products: [shoes('d')] });
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toContain('application/json');
    expect((second.body as { detail: string }).detail).toMatch(/already in progress/);
    expect(await server.db.prisma.product.count({ where: { sku: 'SHOE-BLK-9-d' } })).toBe(0);
    const elsewhere = await upload({ products: [shoes('d')] }, other.secret, other.storeId);
    expect(elsewhere.status).toBe(200);
    expect(((await running).body as Answer).processed_count).toBe(150);
    expect(await server.db.prisma.bulkOperationLock.count()).toBe(0);
    expect((await upload({ products: [shoes('d')] })).status).toBe(200);
  });

  it('takes over the lock of a run that died (its lease expired)', async () => {
    await server.db.prisma.bulkOperationLock.create({
      data: { storeId: store.storeId, operation: 'product_bulk_upload', runId: 'dead-run', expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await upload({ products: [shoes('e')] })).status).toBe(200);
    await server.db.prisma.bulkOperationLock.create({
      data: { storeId: store.storeId, operation: 'product_bulk_upload', runId: 'live-run', expiresAt: new Date(Date.now() + 60_000) },
    });
    expect((await upload({ products: [shoes('f')] })).status).toBe(409);
    await server.db.prisma.bulkOperationLock.deleteMany({ where: { runId: 'live-run' } });
  });

  it("refuses another store's path (403), another store's family id, and a client without products_write", async () => {
    const mine = ((await upload({ products: [shoes('g')] })).body as Answer).results[0];
    expect((await upload({ products: [shoes('h')] }, store.secret, other.storeId)).status).toBe(403);
    const theirs = await upload({ products: [{ product_family_id: mine.product_family_id, title: 'Steal', variants: [{ sku: 'STEAL', price: 1, currency: 'USD' }] }] }, other.secret, other.storeId);
    expect((theirs.body as Answer).results[0]).toMatchObject({ status: 'error', error: expect.stringContaining('not found') });
    const reader = await addApiClient(server.db, store.storeId, ['products_read']);
    expect((await upload({ products: [shoes('i')] }, reader.secret)).status).toBe(403);
  });

  it('the v3 mutation bulkUpsertProductFamilies is the same operation', async () => {
    const result = await graphql(server, store.secret, 'mutation($f: [BulkProductFamilyInput!]!) { bulkUpsertProductFamilies(families: $f) { status products { sku } } }', {
      f: [{ title: 'Cap', variants: [{ sku: 'CAP-v3', price: 500, currency: 'EUR' }] }],
    });
    expect(result.data).toEqual({ bulkUpsertProductFamilies: [{ status: 'CREATED', products: [{ sku: 'CAP-v3' }] }] });
  });
});

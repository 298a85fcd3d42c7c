// The search syntax (src/domain/search) on the v3 lists orders, returns, customers and
// products, on the database the run uses: each example of issue 33 finds its record and
// nothing else, every kind of term (word, phrase, field, comparison, negation, OR, groups),
// the errors, another store's records never, and pages that hold while records are added.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct, createProductFamily } from '../../src/domain/catalog.ts';
import { upsertCustomer } from '../../src/domain/customers.ts';
import { adjustInventory, createLocation } from '../../src/domain/inventory.ts';
import { createOrder } from '../../src/domain/orders.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { importReturns } from '../../src/domain/returns/imports.ts';
import { setReturnLabel, flagReturn } from '../../src/domain/returns/operations.ts';
import { call, createTestStore, graphql, linkFulfillmentService, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { orderInput as order } from '../support/orderInput.ts';
import { query } from './fixtures.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
  const db = server.db.prisma;
  const s = store.storeId;

  const zoe = await createOrder(db, s, order('SHOP-7001', { email: 'zoe.dupont@gmail.com', name: 'Zoë Dupont', firstName: 'Zoë', lastName: 'Dupont', phoneNumber: '+14155550107' }, [{ sku: 'BLADE-01', title: 'Blade Runner Poster' }], { tags: ['VIP'], totalPrice: '150' }));
  const ada = await createOrder(db, s, order('SHOP-7002', { email: 'ada@example.com', name: 'Ada Lovelace', phoneNumber: '+442071234567' }, [{ sku: 'TEE-RED-M', title: 'Trail Tee Red' }]));
  const grace = await createOrder(db, s, order('SHOP-7003', { email: 'grace@example.org', name: 'Grace Hopper' }, [{ sku: 'MUG-02', title: 'Enamel Mug' }], { createdAt: '2026-11-05T10:00:00Z', totalPrice: '12.5' }));
  // Names only as first and last: a phrase spanning both spans two fields of the document.
  const sam = await createOrder(db, s, order('SHOP-7005', { email: 'sam7@shoppers.test', firstName: 'Sam7', lastName: 'Shopper' }, [{ sku: 'CAP-01', title: 'Cap' }], { createdAt: '2026-10-02T10:00:00Z' }));
  Object.assign(ids, { zoe: zoe.id, zoeName: zoe.name, ada: ada.id, adaName: ada.name, grace: grace.id, graceName: grace.name, sam: sam.id });
  // Another store's records match the same words and must never be found.
  await createOrder(db, other.storeId, order('SHOP-7001', { email: 'zoe.dupont@gmail.com', name: 'Zoë Dupont', phoneNumber: '+14155550107' }, [{ sku: 'BLADE-01', title: 'Blade Runner Poster' }]));

  const zoeLine = (await db.orderLineItem.findFirstOrThrow({ where: { orderId: zoe.id } })).id;
  const adaLine = (await db.orderLineItem.findFirstOrThrow({ where: { orderId: ada.id } })).id;
  const zoeReturn = await createReturn(db, s, { orderId: zoe.id, items: [{ lineItemId: zoeLine, quantity: 1, reason: 'arrived damaged' }] });
  await setReturnLabel(db, s, { id: zoeReturn.id }, { trackingNumber: '1Z999AA10123456784', carrier: 'UPS' });
  const adaReturn = await createReturn(db, s, { orderId: ada.id, items: [{ lineItemId: adaLine, quantity: 1, reason: 'too small' }], type: 'claim' });
  await flagReturn(db, s, { id: adaReturn.id });

  const zoeCustomer = await upsertCustomer(db, s, { email: 'zoe.dupont@gmail.com', firstName: 'Zoë', lastName: 'Dupont', phoneNumber: '+14155550107', customFields: { loyalty_tier: 'Platinum' } });
  const adaCustomer = await upsertCustomer(db, s, { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' });
  await upsertCustomer(db, other.storeId, { email: 'zoe.dupont@gmail.com', firstName: 'Zoë', customFields: { loyalty_tier: 'Platinum' } });
  Object.assign(ids, { zoeCustomer: zoeCustomer.customer.id, adaCustomer: adaCustomer.customer.id });

  const family = await createProductFamily(db, s, { title: 'Blade', options: [{ name: 'Colour', values: ['Midnight Blue', 'Red'] }] });
  const blade = await createProduct(db, s, { title: 'Blade Runner Poster', sku: 'BLADE-01', upc: '012345678905', barcodes: ['4006381333931'], vendor: 'Café Prints', tags: ['Posters'], productFamilyId: family.id, options: [{ name: 'Colour', value: 'Midnight Blue' }], price: '30' });
  const tee = await createProduct(db, s, { title: 'Trail Tee', sku: 'TEE-RED-M', vendor: 'Demo Outfitters', productFamilyId: family.id, options: [{ name: 'Colour', value: 'Red' }], price: '25' });
  Object.assign(ids, { blade: blade.id, tee: tee.id });

  // Stock at the store's warehouse and at a linked fulfillment service's location.
  const warehouse = await createLocation(db, s, { name: 'Oakland Warehouse', countryCode: 'US' });
  const service = await createTestStore(server.db, { kind: 'FULFILLMENT_SERVICE', name: 'Rapid 3PL' });
  await linkFulfillmentService(db, s, service.storeId);
  const reno = await createLocation(db, service.storeId, { name: 'Reno DC', countryCode: 'US' });
  const levels: Record<string, string> = {};
  for (const [key, productId, locationId] of [['bladeOakland', blade.id, warehouse.id], ['teeOakland', tee.id, warehouse.id], ['bladeReno', blade.id, reno.id]] as const) {
    levels[key] = (await adjustInventory(db, s, { productId, locationId, quantityDelta: 5, reason: 'count' })).id;
  }
  Object.assign(ids, levels, { serviceSecret: service.secret });
  const [imported] = await importReturns(db, s, [{ externalReferenceId: 'RMA-55123', customer: { email: 'walkin@example.net', firstName: 'José' }, items: [{ productId: tee.id, productTitle: 'Gift card sleeve', sku: 'SLV-9', quantity: 1 }] }]);
  if (imported.status !== 'created') throw new Error(JSON.stringify(imported));
  Object.assign(ids, { zoeReturn: zoeReturn.id, adaReturn: adaReturn.id, imported: imported.returnId });
});

afterAll(async () => {
  await server?.close();
});

const LISTS = {
  orders: 'orders(first: 50, query: $q) { nodes { id } }',
  returns: 'returns(first: 50, query: $q) { nodes { id } }',
  customers: 'customers(first: 50, query: $q) { nodes { id } }',
  products: 'products(first: 50, query: $q) { nodes { id } }',
} as const;

async function find(list: keyof typeof LISTS, q: string, secret = store.secret): Promise<string[]> {
  const data = await query<Record<string, { nodes: { id: string }[] }>>(server, secret, `query($q: String) { ${LISTS[list]} }`, { q });
  return data[list].nodes.map((n) => n.id).sort();
}

const sorted = (...values: string[]) => [...values].sort();

describe('orders', () => {
  it.each([
    ['#1001-style name', () => ids.zoeName, () => [ids.zoe]],
    ['name: without #', () => `name:${ids.adaName.slice(1)}`, () => [ids.ada]],
    ["the merchant's order id", () => 'SHOP-7002', () => [ids.ada]],
    ['the whole e-mail', () => 'zoe.dupont@gmail.com', () => [ids.zoe]],
    ['a part of the e-mail', () => 'gmai', () => [ids.zoe]],
    ['an accent-free name', () => 'zoe', () => [ids.zoe]],
    ['the name with its accent, any case', () => 'ZOË', () => [ids.zoe]],
    ['a phone as E.164 with dashes', () => '+1 415-555-0107', () => [ids.zoe]],
    ['a phone with parentheses', () => '(415) 555 0107', () => [ids.zoe]],
    ['a phone as bare digits', () => '4155550107', () => [ids.zoe]],
    ['a part of a SKU', () => 'ADE-0', () => [ids.zoe]],
    ["a line's title word", () => 'enamel', () => [ids.grace]],
    ['a tag', () => 'tag:vip', () => [ids.zoe]],
    ['email: term', () => 'email:example', () => [ids.ada, ids.grace]],
    ['customer: term', () => 'customer:hopp', () => [ids.grace, ids.sam]],
    ['sku: term', () => 'sku:tee-red', () => [ids.ada]],
    ['a quoted phrase', () => '"blade runner"', () => [ids.zoe]],
    ['a quoted phrase across the first and the last name', () => '"sam7 shopper"', () => [ids.sam]],
    ['a quoted phrase, in any case and spacing, not the words apart', () => '"SAM7   shopper" -"shopper sam7"', () => [ids.sam]],
    ['a quoted phone as typed', () => '"(415) 555 0107"', () => [ids.zoe]],
    ['a date comparison', () => 'created_at:>=2026-11-01', () => [ids.grace]],
    ['a whole day', () => 'created_at:2026-10-01', () => [ids.zoe, ids.ada]],
    ['an amount comparison', () => 'total:>100', () => [ids.zoe]],
    ['an amount upper bound', () => 'total:<=12.50', () => [ids.grace]],
    ['negation', () => 'example -email:gmail', () => [ids.ada, ids.grace]],
    ['NOT', () => 'shop NOT gmail', () => [ids.ada, ids.grace, ids.sam]],
    ['OR', () => 'enamel OR gmail', () => [ids.zoe, ids.grace]],
    ['terms side by side all hold', () => 'example created_at:<2026-11-01', () => [ids.ada]],
    ['parentheses', () => '(mug OR tee) -grace', () => [ids.ada]],
    ['nothing', () => 'nothing-like-this', () => []],
  ])('%s', async (_label, q, expected) => {
    expect(await find('orders', q())).toEqual(sorted(...expected()));
  });

  it('a blank query lists everything, and another store never shows', async () => {
    expect(await find('orders', '   ')).toEqual(sorted(ids.zoe, ids.ada, ids.grace, ids.sam));
    expect(await find('orders', 'zoe', other.secret)).toHaveLength(1);
    expect(await find('orders', 'zoe', other.secret)).not.toContain(ids.zoe);
  });

  it('email: with a whole address finds that address in any case, not one that contains it', async () => {
    const nada = await createOrder(server.db.prisma, store.storeId, order('SHOP-7004', { email: 'nada@example.com' }, [{ sku: 'MUG-02', title: 'Enamel Mug' }]));
    expect(await find('orders', 'email:ADA@example.com')).toEqual([ids.ada]);
    expect(await find('orders', 'email:ada@example')).toEqual(sorted(ids.ada, nada.id));
    expect(await find('returns', 'email:ada@example.com')).toEqual([ids.adaReturn]);
  });
});

describe('returns', () => {
  it.each([
    ['the order name', () => ids.zoeName, () => [ids.zoeReturn]],
    ['the tracking number, whole', () => '1Z999AA10123456784', () => [ids.zoeReturn]],
    ['tracking: a part', () => 'tracking:10123456', () => [ids.zoeReturn]],
    ['the RMA reference', () => 'RMA-55123', () => [ids.imported]],
    ['rma: a part', () => 'rma:55123', () => [ids.imported]],
    ["the shopper's e-mail through the order", () => 'gmai', () => [ids.zoeReturn]],
    ["the shopper's phone through the order", () => '(415) 555-0107', () => [ids.zoeReturn]],
    ["an imported return's customer, accent-free", () => 'jose', () => [ids.imported]],
    ["an item's SKU", () => 'sku:ade-0', () => [ids.zoeReturn]],
    ["an imported item's SKU", () => 'SLV-9', () => [ids.imported]],
    ["an item's reason", () => 'reason:damaged', () => [ids.zoeReturn]],
    ['a status', () => 'status:flagged', () => [ids.adaReturn]],
    ["the compat door's state name", () => 'status:review', () => [ids.adaReturn]],
    ['a negated status', () => '-status:open', () => [ids.adaReturn]],
    ['a type', () => 'type:claim', () => [ids.adaReturn]],
    ['the order by its merchant id', () => 'order_id:SHOP-7002', () => [ids.adaReturn]],
    ['the carrier', () => 'carrier:ups', () => [ids.zoeReturn]],
  ])('%s', async (_label, q, expected) => {
    expect(await find('returns', q())).toEqual(sorted(...expected()));
  });

  it('a changed label is found by its new number at once, and no longer by the old one', async () => {
    await setReturnLabel(server.db.prisma, store.storeId, { id: ids.zoeReturn }, { trackingNumber: '9400111899223344556677', carrier: 'USPS' });
    expect(await find('returns', '9400111899223344556677')).toEqual([ids.zoeReturn]);
    expect(await find('returns', '1Z999AA10123456784')).toEqual([]);
  });
});

describe('customers', () => {
  it.each([
    ['a part of the e-mail', () => 'gmai', () => [ids.zoeCustomer]],
    ['the first name without its accent', () => 'zoe', () => [ids.zoeCustomer]],
    ['name: the last name', () => 'name:lovel', () => [ids.adaCustomer]],
    ['a phone', () => '+1 (415) 555 0107', () => [ids.zoeCustomer]],
    ["a custom field's value", () => 'platinum', () => [ids.zoeCustomer]],
    ['email: exact e-mail', () => 'email:ada@example.com', () => [ids.adaCustomer]],
  ])('%s', async (_label, q, expected) => {
    expect(await find('customers', q())).toEqual(sorted(...expected()));
  });
});

describe('products', () => {
  it.each([
    ['a title word', () => 'poster', () => [ids.blade]],
    ['a part of a SKU', () => 'ADE-0', () => [ids.blade]],
    ['the UPC', () => '012345678905', () => [ids.blade]],
    ['a barcode', () => 'barcode:4006381333931', () => [ids.blade]],
    ['the vendor without its accent', () => 'vendor:cafe', () => [ids.blade]],
    ['a tag', () => 'tag:posters', () => [ids.blade]],
    ['an option value', () => 'option:"midnight blue"', () => [ids.blade]],
    ['a price comparison', () => 'price:<30', () => [ids.tee]],
  ])('%s', async (_label, q, expected) => {
    expect(await find('products', q())).toEqual(sorted(...expected()));
  });
});

describe('inventory levels', () => {
  const levels = async (q: string, secret = store.secret) => {
    const data = await query<{ inventoryLevels: { nodes: { id: string }[] } }>(server, secret, 'query($q: String) { inventoryLevels(first: 50, query: $q) { nodes { id } } }', { q });
    return data.inventoryLevels.nodes.map((n) => n.id).sort();
  };

  it.each([
    ["the product's SKU, a part", () => 'ADE-0', () => [ids.bladeOakland, ids.bladeReno]],
    ["the product's UPC", () => '012345678905', () => [ids.bladeOakland, ids.bladeReno]],
    ['a location by a part of its name', () => 'tee location:oakland', () => [ids.teeOakland]],
    ['sku: and a negated location', () => 'sku:blade -location:reno', () => [ids.bladeOakland]],
  ])('%s', async (_label, q, expected) => {
    expect(await levels(q())).toEqual(sorted(...expected()));
  });

  it("lets a fulfillment service find the levels at its locations by what it may see of the product, and by nothing else", async () => {
    expect(await levels('BLADE-01', ids.serviceSecret)).toEqual([ids.bladeReno]);
    // The vendor, tags and option values are the merchant's: a word found only there finds nothing.
    expect(await levels('cafe', ids.serviceSecret)).toEqual([]);
    expect(await levels('posters', ids.serviceSecret)).toEqual([]);
    const vendor = await graphql(server, ids.serviceSecret, 'query { inventoryLevels(query: "vendor:cafe") { nodes { id } } }');
    expect(vendor.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('errors', () => {
  it.each([
    ['an unknown field, listing the fields', 'orders', 'colour:red', /colour:red.*fields: name, id, order_id, email, phone/],
    ['a quote never closed', 'orders', '"blade', /quote/],
    ['a dangling OR', 'returns', 'ups OR', /OR needs a term after it/],
    ['an unbalanced parenthesis', 'customers', '(zoe', /parenthesis/],
    ['a bad date', 'orders', 'created_at:>=yesterday', /created_at takes a date/],
    ['a bad amount', 'orders', 'total:>lots', /total takes an amount/],
    ['a comparison on text', 'orders', 'email:>a', /only dates and amounts/],
    ['an unknown status, listing them', 'returns', 'status:lost', /status is one of open, in_transit/],
    ['an empty value', 'products', 'sku:', /no value/],
  ])('%s is BAD_USER_INPUT naming the term', async (_label, list, q, message) => {
    const result = await graphql(server, store.secret, `query($q: String) { ${LISTS[list as keyof typeof LISTS]} }`, { q });
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0]?.message).toMatch(message);
  });

  it.each([
    ['a word of 2 letters', 'orders', 'zz'],
    ['ten words of 2 letters', 'customers', 'ab cd ef gh ij kl mn op qr st'],
    ['a term only excluded', 'orders', '-mug'],
    ['short words beside an excluded one', 'returns', 'ab -ups'],
    ['an OR with a side no index answers', 'products', 'poster OR zz'],
    ['a text field with no trigram', 'orders', 'email:ab'],
  ])('%s is refused before it reads the store: BAD_USER_INPUT saying what to add', async (_label, list, q) => {
    const statements: string[] = [];
    const stop = server.db.onStatement(({ sql }) => statements.push(sql));
    const result = await graphql(server, store.secret, `query($q: String) { ${LISTS[list as keyof typeof LISTS]} }`, { q }).finally(stop);
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0]?.message).toMatch(/nothing in it can be looked up in an index.*add a word of 3 or more letters or digits, a field:value .* or a date range/);
    expect(statements.filter((sql) => /searchText|search_fold/.test(sql))).toEqual([]);
  });

  it.each([
    ['a long word beside a short one', 'orders', 'gmai zo', () => [ids.zoe]],
    ['an exclusion beside a field', 'returns', 'type:claim -ups', () => [ids.adaReturn]],
    ['a status excluded alone', 'returns', '-status:open', () => [ids.adaReturn]],
    ['a date range beside a short word', 'orders', 'created_at:>=2026-11-01 en', () => [ids.grace]],
  ])('%s is looked up', async (_label, list, q, expected) => {
    expect(await find(list as keyof typeof LISTS, q)).toEqual(sorted(...expected()));
  });

  it('repeated terms run as one condition each, in one plan that does not grow with them', async () => {
    const statements: string[] = [];
    const stop = server.db.onStatement(({ sql }) => statements.push(sql));
    try {
      expect(await find('orders', Array.from({ length: 30 }, () => 'gmai').join(' '))).toEqual([ids.zoe]);
      const levels = await query<{ inventoryLevels: { nodes: { id: string }[] } }>(server, store.secret, 'query($q: String) { inventoryLevels(first: 50, query: $q) { nodes { id } } }', {
        q: Array.from({ length: 15 }, (_, i) => `bla${i % 3} ade`).join(' '),
      });
      expect(levels.inventoryLevels.nodes).toEqual([]);
    } finally {
      stop();
    }
    const [orders, levels] = statements.filter((sql) => /searchText/.test(sql));
    expect(orders.match(/"searchText" LIKE/g)).toHaveLength(1);
    // Every product term of a level is one condition on its product: one EXISTS, not one per term.
    expect(levels.match(/FROM "Product"/g)).toHaveLength(1);
  });

  it.skipIf(process.env.TEST_DATABASE_URL === undefined)(
    'a search statement that runs past its time limit (PostgreSQL) is cancelled and refused saying what to add, on v3 and /v3/rest',
    async () => {
      // A lock the search must wait for stands in for a search that reads the whole store: both keep it running.
      const locker = new pg.Client({ connectionString: server.db.url });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE "Order" IN ACCESS EXCLUSIVE MODE');
        const started = performance.now();
        const result = await graphql(server, store.secret, `query($q: String) { ${LISTS.orders} }`, { q: 'gmai' });
        expect(performance.now() - started).toBeLessThan(1_000);
        expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
        expect(result.errors?.[0]?.message).toMatch(/^query: the search ran past its 500 ms: it matches too much for an index to narrow; add a word of 3 or more/);
        const rest = await call(server, 'GET', `/v3/rest/orders?query=gmai`, { secret: store.secret });
        expect(rest.status).toBe(400);
        expect(rest.headers.get('content-type')).toMatch(/application\/problem\+json/);
        expect(JSON.stringify(rest.body)).toMatch(/ran past its 500 ms/);
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }
      // The connections went back to the pool as they came: the next search runs as usual.
      expect(await find('orders', 'gmai')).toEqual([ids.zoe]);
    },
  );

  it('a query over the limits is refused', async () => {
    const result = await graphql(server, store.secret, `query($q: String) { ${LISTS.orders} }`, { q: Array.from({ length: 31 }, (_, i) => `w${i}x`).join(' ') });
    expect(result.errors?.[0]?.message).toMatch(/at most 30 terms/);
  });

  it('SQL in a query is only ever a value', async () => {
    expect(await find('orders', `'; DROP TABLE "Order"; --`)).toEqual([]);
    expect(await find('orders', '100%')).toEqual([]);
    expect(await find('orders', 'ada_')).toEqual([]);
    expect(await find('orders', 'gmail')).toEqual([ids.zoe]);
  });
});

describe('pages', () => {
  it('page with the same cursors, stable while matching records are added', async () => {
    const db = server.db.prisma;
    for (let i = 0; i < 5; i++) {
      await createOrder(db, store.storeId, order(`PAGE-${i}`, { email: `pager${i}@paging.test` }, [{ sku: `PG-${i}`, title: 'Pager' }], { createdAt: `2026-09-0${i + 1}T10:00:00Z` }));
    }
    const page = (after: string | null) =>
      query<{ orders: { nodes: { name: string }[]; pageInfo: { endCursor: string; hasNextPage: boolean } } }>(
        server,
        store.secret,
        'query($after: String) { orders(first: 2, after: $after, query: "paging.test") { nodes { name } pageInfo { endCursor hasNextPage } } }',
        { after },
      );
    const first = await page(null);
    await createOrder(db, store.storeId, order('PAGE-new', { email: 'newer@paging.test' }, [{ sku: 'PG-N', title: 'Pager' }]));
    const names = first.orders.nodes.map((n) => n.name);
    let cursor: string | null = first.orders.pageInfo.endCursor;
    while (cursor) {
      const next = await page(cursor);
      names.push(...next.orders.nodes.map((n) => n.name));
      cursor = next.orders.pageInfo.hasNextPage ? next.orders.pageInfo.endCursor : null;
    }
    expect(names).toHaveLength(5);
    expect(new Set(names).size).toBe(5);
  });
});

describe('the same search on /v3/rest (SOFA)', () => {
  it('lists what v3 finds, for each list, and pages with its cursors', async () => {
    const cases: [string, string, string[]][] = [
      ['orders', '(415) 555 0107', [ids.zoe]],
      ['returns', 'tracking:9400111899', [ids.zoeReturn]],
      ['customers', 'zoe', [ids.zoeCustomer]],
      ['products', 'ADE-0', [ids.blade]],
    ];
    for (const [list, q, expected] of cases) {
      const response = await call(server, 'GET', `/v3/rest/${list}?first=10&query=${encodeURIComponent(q)}`, { secret: store.secret });
      expect(response.status, response.text).toBe(200);
      const body = response.body as { edges: { node: { id: string } }[] };
      expect(body.edges.map((e) => e.node.id).sort(), `${list} ${q}`).toEqual(sorted(...expected));
    }
    const first = await call(server, 'GET', `/v3/rest/orders?first=2&query=paging.test`, { secret: store.secret });
    const page = first.body as { edges: { node: { id: string } }[]; pageInfo: { endCursor: string } };
    const next = await call(server, 'GET', `/v3/rest/orders?first=2&query=paging.test&after=${encodeURIComponent(page.pageInfo.endCursor)}`, { secret: store.secret });
    const nextIds = (next.body as { edges: { node: { id: string } }[] }).edges.map((e) => e.node.id);
    expect(nextIds).toHaveLength(2);
    expect(nextIds.some((id) => page.edges.some((e) => e.node.id === id))).toBe(false);
  });

  it('answers a bad query as problem+json 400 naming the term', async () => {
    const response = await call(server, 'GET', `/v3/rest/returns?query=${encodeURIComponent('color:red')}`, { secret: store.secret });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(response.body)).toMatch(/color:red.*fields: name, order_id, id/);
  });
});

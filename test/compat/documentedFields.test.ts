// The compat door answers every field Loop Returns documents for details, the list (bare and
// paginated) and the advance shipping notice, with the documented types and formats
// (test/support/loopDocumented.ts), for a return with items, a label and a processed refund;
// and the values come from our data where the concept exists here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { problems, validators } from '../support/loopDocumented.ts';
import { createTestOrder } from '../support/returnFixtures.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { warehouse } from './helpers.ts';

let server: TestServer;
let store: TestStore;
let returnNumber: number;
let returnId: string;
let locationId: string;

type Body = Record<string, unknown> & { line_items: Record<string, unknown>[] };

const TRACKING_URL = 'https://tools.usps.example/go/TrackConfirmAction?tLabels=9400136105440512280610';

/**
 * A return as a shop on the platform makes them: numeric merchant ids, an item with a picture
 * and a variant of a product with options, a second item for store credit, a label, an origin
 * address in Canada, then processed.
 */
async function seed(): Promise<void> {
  const { prisma } = server.db;
  locationId = (await prisma.store.findUniqueOrThrow({ where: { id: store.storeId } })).defaultLocationId!;
  const familyId = newId('productFamily');
  const productId = newId('product');
  await prisma.productFamily.create({ data: { id: familyId, storeId: store.storeId, title: 'Striped Shirt' } });
  const [size, color] = [newId('productFamilyOption'), newId('productFamilyOption')];
  await prisma.productFamilyOption.createMany({
    data: [
      { id: color, familyId, name: 'Color', position: 1, values: ['Navy'] },
      { id: size, familyId, name: 'Size', position: 0, values: ['Small'] },
    ],
  });
  await prisma.product.create({ data: { id: productId, storeId: store.storeId, familyId, title: 'Black Striped Shirt', sku: '2039473-Y', upc: '290832428347' } });
  await prisma.productOptionValue.createMany({ data: [{ productId, optionId: size, value: 'Small' }, { productId, optionId: color, value: 'Navy' }] });
  await prisma.productImage.create({ data: { id: newId('productImage'), productId, url: 'https://cdn.example/shirt.jpg', position: 0 } });

  const order = await createTestOrder(server.db, store.storeId, {
    lines: [
      { externalId: '23984238720', externalProductId: '29871298313', externalVariantId: '23498287203948', title: 'Black Striped Shirt', sku: '2039473-Y', price: '78.00', discount: '6.00', quantity: 2, productId },
      { externalId: '23984238721', externalProductId: '29871298314', externalVariantId: '23498287203949', title: 'Cap', sku: 'CAP-1', price: '12.50' },
    ],
    totalTax: '8.58',
    subtotalPrice: '150.00',
    customerEmail: 'example@example.com',
    locationId,
  });
  await prisma.order.update({ where: { id: order.id }, data: { externalId: '5444175757553' } });
  await prisma.orderLineItem.update({ where: { id: order.lineItems[1].id }, data: { imageUrl: 'https://cdn.example/cap.jpg' } });

  const created = await graphql(
    server,
    store.secret,
    `mutation($input: ReturnCreateInput!) { returnCreate(input: $input) { return { id number } } }`,
    {
      input: {
        orderId: order.id,
        items: [
          { lineItemId: '23984238720', quantity: 1, reason: 'I like another style more', customerComment: 'Fits small' },
          { lineItemId: '23984238721', quantity: 1, reason: 'Too big', outcome: 'CREDIT' },
        ],
        originAddress: { line1: '1 Rue Ste-Catherine', city: 'Montréal', state: 'QC', postalCode: 'H2X 1Y4', country: 'CA' },
        label: { trackingNumber: '9400136105440512280610', carrier: 'USPS', trackingUrl: TRACKING_URL, postageLabelUrl: 'https://labels.example/1.pdf' },
      },
    },
  );
  expect(created.errors).toBeUndefined();
  ({ id: returnId, number: returnNumber } = (created.data as { returnCreate: { return: { id: string; number: number } } }).returnCreate.return);
  const labelled = await graphql(
    server,
    store.secret,
    `mutation($number: Int!, $trackingUrl: String!) { returnLabelSet(number: $number, label: { trackingNumber: "9400136105440512280610", carrier: "USPS", trackingUrl: $trackingUrl, postageLabelUrl: "https://labels.example/1.pdf" }, labelStatus: "in_transit") { labelStatus } }`,
    { number: returnNumber, trackingUrl: TRACKING_URL },
  );
  expect(labelled.errors).toBeUndefined();
  const processed = await warehouse(server, store.secret, 'POST', `/return/${returnNumber}/process`);
  expect(processed.body).toBe(true);
}

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  await seed();
});
afterAll(async () => server?.close());

describe('Get Return Details', () => {
  it('answers every documented field with its documented type and format', async () => {
    const res = await warehouse(server, store.secret, 'GET', `/return/details?return_id=${returnNumber}&currency_type=presentment`);
    expect(res.status).toBe(200);
    expect(validators.details(res.body), problems(validators.details)).toBe(true);
  });

  it('is checked against a schema that refuses a missing field and a number for money', async () => {
    const body = (await warehouse(server, store.secret, 'GET', `/return/details?return_id=${returnNumber}`)).body as Body;
    const { handling_fee: _dropped, ...missing } = body;
    expect(validators.details(missing)).toBe(false);
    expect(validators.details({ ...body, refund: 79.29 })).toBe(false);
  });

  it('fills them from the return, its order and its items', async () => {
    const body = (await warehouse(server, store.secret, 'GET', `/return/details?return_id=${returnNumber}`)).body as Body;
    expect(body).toMatchObject({
      id: returnNumber,
      svc_id: returnId,
      state: 'closed',
      provider_order_id: 5444175757553,
      origin_country: 'Canada',
      origin_country_code: 'CA',
      multi_currency: false,
      // 78.00 and 12.50 at their price; 3.00 of the line's 6.00 discount; 8.58 of tax pro-rated on 150.00.
      return_product_total: '90.50',
      return_discount_total: '3.00',
      return_tax_total: '5.01',
      return_total: '92.51',
      // The shirt refunded (75.00 + 4.29 tax), the cap credited (12.50 + 0.72 tax) as the platform's gift card.
      refund: '79.29',
      gift_card: '13.22',
      refunds: [{ gateway: null, amount: '79.29', currency: 'USD', provider_refund_id: null }],
      exchange_total: '0.00',
      upsell: '0.00',
      handling_fee: '0.00',
      carrier: 'USPS',
      tracking_number: '9400136105440512280610',
      label_status: 'in_transit',
    });
    expect(body.order_number).toBe(String(body.provider_order_number));
    expect(body.edited_at).toBe(body.updated_at);
    expect(body.line_items).toEqual([
      expect.objectContaining({
        provider_line_item_id: 23984238720,
        product_id: 29871298313,
        variant_id: 23498287203948,
        line_item_title: 'Black Striped Shirt',
        variant_title: 'Small / Navy',
        image: 'https://cdn.example/shirt.jpg',
        barcode: '290832428347',
        refund: '79.29',
        refund_item: '75.00',
        refund_tax: '4.29',
        return_comment: 'Fits small',
        provider_restock_location_id: locationId,
      }),
      expect.objectContaining({ provider_line_item_id: 23984238721, image: 'https://cdn.example/cap.jpg', variant_title: null, refund: '13.22', outcome: 'credit' }),
    ]);
  });
});

describe('Detailed Returns List', () => {
  it('answers every documented field, bare and paginated', async () => {
    const bare = await warehouse(server, store.secret, 'GET', '/return/list');
    expect(bare.status).toBe(200);
    expect(bare.body).toHaveLength(1);
    expect(validators.list(bare.body), problems(validators.list)).toBe(true);

    const paginated = await warehouse(server, store.secret, 'GET', '/return/list?paginate=true&pageSize=1');
    expect(paginated.status).toBe(200);
    expect(validators.paginatedList(paginated.body), problems(validators.paginatedList)).toBe(true);
    const [listed] = (paginated.body as { returns: Body[] }).returns;
    expect(listed).toMatchObject({ id: returnNumber, provider_order_id: '5444175757553', destination_id: locationId, refund: '79.29' });
    expect(listed.line_items[0]).toMatchObject({ provider_line_item_id: '23984238720', refund_item: '75.00', refund_tax: '4.29' });
  });
});

describe('Advanced Shipping Notice', () => {
  it('answers every documented field, with the restock status and the time the return closed', async () => {
    const res = await warehouse(server, store.secret, 'GET', '/reporting/asn');
    expect(res.status).toBe(200);
    expect(validators.asn(res.body), problems(validators.asn)).toBe(true);
    const rows = res.body as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    const change = await server.db.prisma.returnStatusChange.findFirstOrThrow({ where: { returnId, toStatus: 'complete' } });
    const location = await server.db.prisma.location.findUniqueOrThrow({ where: { id: locationId } });
    const label = await server.db.prisma.event.findFirstOrThrow({ where: { subjectId: returnId, topic: { startsWith: 'return_label.' } }, orderBy: { createdAt: 'desc' } });
    for (const row of rows) {
      expect(row).toMatchObject({
        id: returnNumber,
        state: 'closed',
        restock_status: 'not_restocked',
        closed_at: change.createdAt.toISOString(),
        tracking_number: '9400136105440512280610',
        integration_tracking_url: TRACKING_URL,
        label_url: 'https://labels.example/1.pdf',
        label_status: 'in_transit',
        // The time of the label's latest event, as the label webhook reports it.
        label_updated_at: label.createdAt.toISOString(),
        destination_id: locationId,
        destination_name: location.name,
        // Never DELIVERED: processed while in transit. Made here, not imported: no RMA id to scan.
        date_delivered: null,
        return_method_rma_code: null,
        scannable_id: null,
        // Concepts this service lacks.
        service: null,
        label_rate: null,
        return_method: null,
        package_reference: null,
      });
    }
    expect(rows.map((row) => [row.return_reason, row.outcome])).toEqual([
      ['I like another style more', 'refund'],
      ['Too big', 'credit'],
    ]);
  });

  it('is checked against a schema that refuses a missing field and a number for money', async () => {
    const [row] = (await warehouse(server, store.secret, 'GET', '/reporting/asn')).body as Record<string, unknown>[];
    const { label_rate: _dropped, ...missing } = row;
    expect(validators.asn([missing])).toBe(false);
    expect(validators.asn([{ ...row, purchase_price: 78 }])).toBe(false);
  });

  it("reports when a return was delivered and an imported return's RMA id", async () => {
    const { prisma } = server.db;
    const made = await prisma.return.findUniqueOrThrow({ where: { id: returnId }, select: { createdAt: true } });
    // The history a return made DELIVERED carries (no operation of ours leads there yet).
    const deliveredAt = new Date(made.createdAt.getTime() + 1000);
    await prisma.returnStatusChange.create({
      data: { id: newId('returnStatusChange'), returnId, operation: 'create', fromStatus: null, toStatus: 'delivered', createdAt: deliveredAt },
    });
    await prisma.return.update({ where: { id: returnId }, data: { externalReferenceId: 'RMA-20931' } });
    const rows = (await warehouse(server, store.secret, 'GET', '/reporting/asn')).body as Record<string, unknown>[];
    expect(validators.asn(rows), problems(validators.asn)).toBe(true);
    for (const row of rows) {
      expect(row).toMatchObject({ date_delivered: deliveredAt.toISOString(), return_method_rma_code: 'RMA-20931', scannable_id: 'RMA-20931' });
    }
  });
});

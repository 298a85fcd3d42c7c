// Demo data for a fresh embedded database: one merchant linked to a fulfillment
// service, locations, a product family with variants, inventory levels, an inbound
// shipment with its purchase order, customers, orders and returns. Written in one
// transaction so a half-seeded database never exists. Seeding is idempotent: a
// database that already has the demo store is left as it is.
import crypto from 'node:crypto';
import { createMerchantUser } from '../auth/merchantUsers.ts';
import { SCOPES } from '../auth/scopes.ts';
import { newId, newReturnId } from './ids.ts';
import { Decimal } from './money.ts';
import { createApiClient } from './stores.ts';
import type { Db } from './tx.ts';

const COLOURS = ['Red', 'Blue', 'Green'];
const SIZES = ['S', 'M', 'L'];

const DEMO_STORE_NAME = 'Demo Outfitters';
const DEMO_CLIENT_NAME = 'Demo (all scopes)';
/** Serialises concurrent seeds (two CLIs, a CLI and a starting server) on one database. */
const SEED_LOCK_KEY = 7_340_112;

export const DEMO_USER_EMAIL = 'demo@example.com';

/** `seeded: false` when the demo store was already there (its secret and password are stored only as hashes). */
export type DemoSeed =
  | { seeded: true; storeId: string; secret: string; login: { email: string; password: string } }
  | { seeded: false; storeId: string };

/** The demo data, and a dashboard user with a random password when it was seeded now. */
export async function seedDemo(db: Db): Promise<DemoSeed> {
  const seeded = await seedDemoData(db);
  if (!seeded.seeded) return seeded;
  const password = crypto.randomBytes(12).toString('base64url');
  await createMerchantUser(db, { storeId: seeded.storeId, email: DEMO_USER_EMAIL, password });
  return { ...seeded, login: { email: DEMO_USER_EMAIL, password } };
}

async function seedDemoData(db: Db): Promise<{ seeded: true; storeId: string; secret: string } | { seeded: false; storeId: string }> {
  const storeId = newId('store');
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`;
      const existing = await tx.store.findFirst({
        where: { name: DEMO_STORE_NAME, kind: 'MERCHANT', apiClients: { some: { name: DEMO_CLIENT_NAME } } },
        select: { id: true },
      });
      if (existing) return { seeded: false as const, storeId: existing.id };
      const serviceId = newId('store');
      await tx.store.create({
        data: {
          id: storeId,
          name: DEMO_STORE_NAME,
          kind: 'MERCHANT',
          originName: 'Demo Outfitters',
          originStreet1: '1 Market Street',
          originCity: 'San Francisco',
          originStateCode: 'CA',
          originPostalCode: '94105',
          originCountryCode: 'US',
        },
      });
      await tx.store.create({ data: { id: serviceId, name: 'Rapid Fulfilment Co', kind: 'FULFILLMENT_SERVICE' } });
      await tx.storeLink.create({ data: { merchantId: storeId, fulfillmentServiceId: serviceId } });

      const warehouse = newId('location');
      const thirdParty = newId('location');
      await tx.location.createMany({
        data: [
          { id: warehouse, storeId, name: 'Main Warehouse', street1: '500 Industrial Way', city: 'Oakland', stateCode: 'CA', postalCode: '94607', countryCode: 'US' },
          { id: thirdParty, storeId: serviceId, name: 'Rapid Reno DC', street1: '20 Logistics Pkwy', city: 'Reno', stateCode: 'NV', postalCode: '89502', countryCode: 'US' },
        ],
      });
      await tx.store.update({ where: { id: storeId }, data: { defaultLocationId: warehouse } });
      await tx.store.update({ where: { id: serviceId }, data: { defaultLocationId: thirdParty } });

      const familyId = newId('productFamily');
      await tx.productFamily.create({
        data: { id: familyId, storeId, title: 'Trail Tee', description: 'Organic cotton tee', vendor: 'Demo Outfitters', tags: ['apparel'] },
      });
      const colour = newId('productFamilyOption');
      const size = newId('productFamilyOption');
      await tx.productFamilyOption.createMany({
        data: [
          { id: colour, familyId, name: 'Colour', position: 0, values: COLOURS },
          { id: size, familyId, name: 'Size', position: 1, values: SIZES },
        ],
      });
      const weightAttr = newId('attribute');
      await tx.attribute.create({
        data: { id: weightAttr, storeId, name: 'shipping_weight', displayName: 'Shipping weight', type: 'WEIGHT' },
      });

      const products: { id: string; sku: string; title: string; price: string }[] = [];
      let n = 0;
      for (const c of COLOURS) {
        for (const s of SIZES) {
          n++;
          const id = newId('product');
          const sku = `TEE-${c.slice(0, 3).toUpperCase()}-${s}`;
          const title = `Trail Tee ${c} / ${s}`;
          products.push({ id, sku, title, price: '25.00' });
          await tx.product.create({
            data: {
              id,
              storeId,
              familyId,
              title,
              description: 'Organic cotton tee',
              sku,
              upc: `0001234${String(n).padStart(5, '0')}`,
              barcodes: [`0001234${String(n).padStart(5, '0')}`],
              vendor: 'Demo Outfitters',
              tags: ['apparel', c.toLowerCase()],
              hsCode: '610910',
              originCountry: 'PT',
              cost: new Decimal('9.5'),
              price: new Decimal('25'),
              length: 30,
              width: 25,
              height: 2,
              dimensionUnit: 'CM',
              weightValue: 180,
              weightUnit: 'G',
              options: { create: [{ optionId: colour, value: c }, { optionId: size, value: s }] },
              images: { create: [{ id: newId('productImage'), url: `https://images.example.com/tee-${c.toLowerCase()}.jpg`, altText: title, position: 0 }] },
              attributes: { create: [{ id: newId('attributeValue'), attributeId: weightAttr, value: { value: 200, unit: 'G' } }] },
            },
          });
          await tx.inventoryLevel.create({
            data: { id: newId('inventoryLevel'), storeId, productId: id, locationId: warehouse, quantity: 40 + n, committed: 0, reserved: 0 },
          });
          if (n <= 3) {
            await tx.inventoryLevel.create({
              data: { id: newId('inventoryLevel'), storeId, productId: id, locationId: thirdParty, quantity: 100, committed: 0, reserved: 0 },
            });
          }
        }
      }

      const poId = newId('purchaseOrder');
      const poItems = products.slice(0, 3).map((p) => ({ id: newId('purchaseOrderItem'), productId: p.id }));
      await tx.purchaseOrder.create({
        data: {
          id: poId,
          storeId,
          name: 'PO-1001',
          vendor: 'Portugal Knitwear',
          status: 'ORDERED',
          expectedAt: new Date(Date.now() + 7 * 86_400_000),
          items: {
            create: poItems.map((i) => ({ id: i.id, productId: i.productId, quantity: 50, unitCost: new Decimal('9.5'), totalTax: new Decimal('47.5') })),
          },
        },
      });
      const shipmentId = newId('inboundShipment');
      await tx.inboundShipment.create({
        data: {
          id: shipmentId,
          storeId,
          locationId: warehouse,
          status: 'IN_TRANSIT',
          carrier: 'Maersk',
          carrierShipmentId: 'MSK-778812',
          trackingNumber: '1Z999AA10123456784',
          trackingUrl: 'https://tracking.example.com/1Z999AA10123456784',
          freightType: 'OCEAN',
          paymentTerms: 'NET30',
          freightCost: new Decimal('350'),
          dutyCost: new Decimal('120.4'),
          estimatedArrivalDate: new Date(new Date().toISOString().slice(0, 10)),
          items: { create: poItems.map((i) => ({ id: newId('inboundShipmentItem'), productId: i.productId, purchaseOrderItemId: i.id, quantity: 50 })) },
          purchaseOrders: { create: [{ purchaseOrderId: poId }] },
        },
      });

      const customers = [
        { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+14155550101' },
        { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper', phone: '+14155550102' },
      ];
      for (const [index, c] of customers.entries()) {
        const customerId = newId('customer');
        await tx.customer.create({
          data: {
            id: customerId,
            storeId,
            email: c.email,
            firstName: c.firstName,
            lastName: c.lastName,
            name: `${c.firstName} ${c.lastName}`,
            phoneNumbers: [c.phone],
            phoneNumberKeys: { create: [{ storeId, phoneNumber: c.phone }] },
            location: { city: 'San Francisco', stateCode: 'CA', countryCode: 'US' },
          },
        });
        const product = products[index];
        const orderId = newId('order');
        const lineId = newId('orderLineItem');
        const groupId = newId('fulfillmentGroup');
        const number = 1001 + index;
        await tx.order.create({
          data: {
            id: orderId,
            storeId,
            externalId: `DEMO-${number}`,
            name: `#${number}`,
            placedAt: new Date(Date.now() - (3 - index) * 86_400_000),
            currency: 'USD',
            totalPrice: new Decimal('31.5'),
            subtotalPrice: new Decimal('25'),
            totalTax: new Decimal('2'),
            totalDiscount: new Decimal('0'),
            customerId,
            customerEmail: c.email,
            customerPhone: c.phone,
            customerName: `${c.firstName} ${c.lastName}`,
            customerFirstName: c.firstName,
            customerLastName: c.lastName,
            shippingMethod: 'Ground',
            shippingCost: new Decimal('4.5'),
            shippingAddress: { address1: '10 Mission St', city: 'San Francisco', province: 'CA', country: 'US', postalCode: '94105' },
            fulfillmentGroups: {
              create: [{ id: groupId, locationId: warehouse, originName: 'Main Warehouse', originStreet1: '500 Industrial Way', originCity: 'Oakland', originStateCode: 'CA', originPostalCode: '94607', originCountryCode: 'US' }],
            },
          },
        });
        await tx.orderLineItem.create({
          data: {
            id: lineId,
            orderId,
            position: 0,
            externalId: `L-${number}-1`,
            externalProductId: product.id,
            title: product.title,
            quantity: 1,
            sku: product.sku,
            price: new Decimal(product.price),
            discount: new Decimal('0'),
            productId: product.id,
            fulfillmentGroupId: groupId,
          },
        });
        await tx.inventoryLevel.update({
          where: { productId_locationId: { productId: product.id, locationId: warehouse } },
          data: { committed: { increment: 1 } },
        });
        await tx.store.update({ where: { id: storeId }, data: { nextOrderNumber: number + 1 } });
        await tx.return.create({
          data: {
            id: newReturnId(),
            storeId,
            orderId,
            currency: 'USD',
            destinationLocationId: warehouse,
            items: { create: [{ id: newId('returnItem'), orderLineItemId: lineId, quantity: 1, reason: index === 0 ? 'too_small' : 'changed_mind' }] },
            statusChanges: { create: [{ id: newId('returnStatusChange'), operation: 'create', toStatus: 'open' }] },
          },
        });
      }
      const client = await createApiClient(tx, { storeId, name: DEMO_CLIENT_NAME, scopes: SCOPES });
      return { seeded: true as const, storeId, secret: client.secret };
    },
    { timeout: 60_000, maxWait: 60_000 },
  );
}

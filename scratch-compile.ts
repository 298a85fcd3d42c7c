import fs from 'node:fs';
import { compileRead } from './src/db/reads/compile.ts';
import { readModel } from './src/generated/readModel.ts';
const seed = JSON.parse(fs.readFileSync('/tmp/benchseed.json', 'utf8'));
const base = (extra: { lineOrder?: boolean; itemExtras?: boolean; allCols?: boolean }) => ({
  where: { storeId: seed.storeId }, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], take: 21,
  select: {
    id: true, status: true, type: true, currency: true, createdAt: true, updatedAt: true, carrier: true, trackingNumber: true, trackingUrl: true, labelStatus: true, labelUrl: true, tags: true,
    customerEmail: true, customerFirstName: true, customerLastName: true, originAddress: true, destinationAddress: true, totalRefund: true, totalStoreCredit: true,
    order: extra.allCols ? { include: { lineItems: { orderBy: { position: 'asc' }, include: { fulfillmentGroup: true } } } } : { select: { id: true, name: true, externalId: true, currency: true, customerExternalId: true, customerEmail: true, customerPhone: true, customerName: true, customerFirstName: true, customerLastName: true, shippingAddress: true,
      totalDiscount: true, subtotalPrice: true, shippingCost: true, totalTax: true, totalPrice: true,
      lineItems: { orderBy: { position: 'asc' }, select: { id: true, externalId: true, title: true, quantity: true, price: true, ...(extra.lineOrder ? { order: { select: { currency: true } } } : {}), fulfillmentGroup: { select: { locationId: true } } } } } },
    items: { where: { removedAt: null }, orderBy: [{ orderLineItem: { position: 'asc' } }, { position: 'asc' }, { id: 'asc' }], select: { id: true, quantity: true, reason: true, reasonCode: true, customerComment: true, outcome: true, sku: true, productId: true,
      ...(extra.itemExtras ? { return: { select: { currency: true } }, product: { select: { id: true } } } : {}),
      orderLineItem: { select: { id: true, externalId: true, externalProductId: true, sku: true, price: true, ...(extra.itemExtras ? { order: { select: { currency: true, totalTax: true } } } : {}) } } } },
    destinationLocation: { select: { name: true, street1: true, street2: true, city: true, stateCode: true, postalCode: true, countryCode: true } },
    notes: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { id: true, content: true, createdAt: true } },
  },
});
for (const [name, extra] of Object.entries({ select: {}, lineOrder: { lineOrder: true }, itemExtras: { itemExtras: true }, both: { lineOrder: true, itemExtras: true }, allCols: { allCols: true } })) {
  const c = compileRead(readModel, 'Return', 'many', base(extra));
  fs.writeFileSync(`/tmp/scratch/${name}.json`, JSON.stringify({ sql: c.sql, params: c.params }));
}

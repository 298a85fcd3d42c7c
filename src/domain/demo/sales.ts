// Customers (custom fields, e-mail and SMS consent) and their orders: a few hundred over the
// last six weeks, regulars ordering again and again, one to four lines, some discounted, some
// fulfilled by the fulfillment service, most shipped with carrier tracking. The orders are
// planned first (planOrders), so the stock can be counted in before they commit it.
import type { Order } from '../../generated/prisma/client.ts';
import { updateCustomerSubscriptions } from '../customerSubscriptions.ts';
import { upsertCustomer } from '../customers.ts';
import { createFulfillment, updateShipmentStatus } from '../fulfillments.ts';
import { Decimal, type DecimalValue } from '../money.ts';
import { createOrder } from '../orders.ts';
import { OVERSOLD_SKU, type DemoProduct } from './catalog.ts';
import { DAY_MS, HOUR_MS, daysAgo, type DemoContext } from './context.ts';
import type { Random } from './random.ts';

export const ORDER_COUNT = 200;
const CUSTOMER_COUNT = 90;
/** Customers who come back most: they place about a third of the orders. */
const REGULARS = 12;
const HISTORY_DAYS = 42;

export interface DemoCustomer {
  email: string;
  firstName: string;
  lastName: string;
  phoneNumber: string;
  address: { address1: string; city: string; province: string; country: string; postalCode: string };
}

const FIRST_NAMES = [
  'Alan', 'Katherine', 'Linus', 'Margaret', 'Dennis', 'Barbara', 'Ken', 'Radia', 'Tim', 'Hedy', 'John', 'Frances', 'Donald',
  'Sophie', 'Edsger', 'Shafi', 'Niklaus', 'Joan', 'Guido', 'Anita', 'Bjarne', 'Evelyn', 'James', 'Mary', 'Leslie', 'Carol',
  'Brian', 'Lynn', 'Adele', 'Whitfield', 'Jean', 'Annie', 'Fernando', 'Kathleen', 'Yukihiro', 'Susan',
];
const LAST_NAMES = [
  'Turing', 'Johnson', 'Torvalds', 'Hamilton', 'Ritchie', 'Liskov', 'Thompson', 'Perlman', 'Lee', 'Lamarr', 'McCarthy',
  'Allen', 'Knuth', 'Wilson', 'Dijkstra', 'Goldwasser', 'Wirth', 'Clarke', 'Rossum', 'Borg', 'Stroustrup', 'Berezin',
  'Gosling', 'Keller', 'Lamport', 'Shaw', 'Kernighan', 'Conway', 'Goldberg', 'Diffie', 'Sammet', 'Easley', 'Corbato',
  'Booth', 'Matsumoto', 'Kare',
];
const CITIES = [
  { city: 'San Francisco', province: 'CA', postalCode: '94110', zone: 'America/Los_Angeles', area: '415' },
  { city: 'Oakland', province: 'CA', postalCode: '94612', zone: 'America/Los_Angeles', area: '510' },
  { city: 'Portland', province: 'OR', postalCode: '97205', zone: 'America/Los_Angeles', area: '503' },
  { city: 'Seattle', province: 'WA', postalCode: '98101', zone: 'America/Los_Angeles', area: '206' },
  { city: 'Boulder', province: 'CO', postalCode: '80302', zone: 'America/Denver', area: '303' },
  { city: 'Salt Lake City', province: 'UT', postalCode: '84101', zone: 'America/Denver', area: '801' },
  { city: 'Austin', province: 'TX', postalCode: '78701', zone: 'America/Chicago', area: '512' },
  { city: 'Chicago', province: 'IL', postalCode: '60601', zone: 'America/Chicago', area: '312' },
  { city: 'Asheville', province: 'NC', postalCode: '28801', zone: 'America/New_York', area: '828' },
  { city: 'Burlington', province: 'VT', postalCode: '05401', zone: 'America/New_York', area: '802' },
  { city: 'Boston', province: 'MA', postalCode: '02108', zone: 'America/New_York', area: '617' },
  { city: 'Brooklyn', province: 'NY', postalCode: '11201', zone: 'America/New_York', area: '718' },
];
const STREETS = ['Mission St', 'Alder St', 'Pine St', 'Pearl St', 'Main St', 'Canyon Blvd', 'Lake Ave', 'Ridge Rd', 'Church St', 'Elm St'];
const TIERS = ['bronze', 'silver', 'gold'] as const;
const ACTIVITIES = ['trail running', 'hiking', 'climbing', 'camping', 'bikepacking'];

/** Ada and Grace first (orders #1001 and #1002, as the README's portal instructions say), then drawn names. */
export function planCustomers(random: Random): DemoCustomer[] {
  const people: { firstName: string; lastName: string; email: string }[] = [
    { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
  ];
  while (people.length < CUSTOMER_COUNT) {
    const firstName = random.pick(FIRST_NAMES);
    const lastName = random.pick(LAST_NAMES);
    const email = `${firstName}.${lastName}@example.com`.toLowerCase();
    if (!people.some((p) => p.email === email)) people.push({ firstName, lastName, email });
  }
  return people.map((person, i) => {
    const place = i < 2 ? CITIES[0] : random.pick(CITIES);
    return {
      ...person,
      phoneNumber: `+1${place.area}555${String(100 + i).padStart(4, '0')}`,
      address: { address1: `${random.int(10, 999)} ${random.pick(STREETS)}`, city: place.city, province: place.province, country: 'US', postalCode: place.postalCode },
    };
  });
}

/** Profiles with custom fields, and for most of them their e-mail and SMS consent. */
export async function seedCustomers(context: DemoContext, customers: DemoCustomer[]): Promise<void> {
  const { tx, storeId, random } = context;
  for (const [i, customer] of customers.entries()) {
    const place = CITIES.find((c) => c.city === customer.address.city)!;
    const customFields: Record<string, string | number | boolean> = {
      loyalty_tier: i < REGULARS ? random.pick(['silver', 'gold']) : random.weighted([[TIERS[0], 6], [TIERS[1], 3], [TIERS[2], 1]]),
      member_since: `${random.int(2019, 2025)}-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}T00:00:00Z`,
    };
    if (random.chance(0.6)) customFields.favourite_activity = random.pick(ACTIVITIES);
    if (random.chance(0.5)) customFields.shoe_size = random.pick([7.5, 8, 8.5, 9, 9.5, 10, 10.5, 11, 12]);
    customFields.vip = i < 4;
    await upsertCustomer(tx, storeId, {
      email: customer.email,
      firstName: customer.firstName,
      lastName: customer.lastName,
      phoneNumber: customer.phoneNumber,
      location: {
        street1: customer.address.address1,
        city: customer.address.city,
        stateCode: customer.address.province,
        postalCode: customer.address.postalCode,
        countryCode: 'US',
        ianaTimeZoneName: place.zone,
      },
      customFields,
    });
    const emailConsent = random.weighted([['SUBSCRIBED', 6], ['UNSUBSCRIBED', 2], [null, 2]] as const);
    const smsMarketing = random.weighted([['SUBSCRIBED', 2], ['CONFIRMED', 2], ['UNSUBSCRIBED', 1], [null, 5]] as const);
    const smsTransactional = random.chance(0.4);
    if (!emailConsent && !smsMarketing && !smsTransactional) continue;
    const changed = (days: number) => ({ updatedAt: daysAgo(context, days) });
    await updateCustomerSubscriptions(tx, storeId, {
      email: emailConsent ? { email: customer.email, subscriptions: { marketing: { subscriptionStatus: emailConsent, ...changed(random.int(1, 300)) } } } : null,
      sms:
        smsMarketing || smsTransactional
          ? {
              phoneNumber: customer.phoneNumber,
              subscriptions: {
                marketing: smsMarketing ? { subscriptionStatus: smsMarketing, triggerAutomations: smsMarketing !== 'UNSUBSCRIBED', ...changed(random.int(1, 200)) } : null,
                transactional: smsTransactional ? { subscriptionStatus: 'SUBSCRIBED', ...changed(random.int(1, 200)) } : null,
              },
            }
          : null,
    });
  }
}

export interface PlannedLine {
  product: DemoProduct;
  quantity: number;
  /** The line's discount, exact text; null without one. */
  discount: string | null;
}

export interface PlannedOrder {
  /** 1001 for "#1001" and "DEMO-1001". */
  number: number;
  placedAt: Date;
  /** A guest checkout has an e-mail but no customer profile. */
  customer: DemoCustomer;
  lines: PlannedLine[];
  /** Fulfilled (and committing stock) at the fulfillment service's location instead of the warehouse. */
  atService: boolean;
  shipping: { method: string; cost: string };
  tags: string[];
}

const money = (value: DecimalValue) => value.toFixed(2);
const TAX_RATE = new Decimal('0.085');

/** The orders, oldest (#1001) first, and what they commit at each location, by SKU. */
export function planOrders(context: DemoContext, products: DemoProduct[], customers: DemoCustomer[]) {
  const { random } = context;
  const bySku = (sku: string) => products.find((p) => p.sku === sku)!;
  const ages = Array.from({ length: ORDER_COUNT }, () => random.next() * (HISTORY_DAYS * DAY_MS - HOUR_MS) + HOUR_MS).sort((a, b) => b - a);
  const customerWeights = customers.map((customer, i) => [customer, i < REGULARS ? 3 : 1] as const);
  const productWeights = products.map((product) => [product, product.popularity] as const);
  const seen = new Set<string>();
  const orders: PlannedOrder[] = ages.map((age, i) => {
    const number = 1001 + i;
    let customer: DemoCustomer;
    let lines: PlannedLine[];
    if (i === 0) {
      customer = customers[0];
      lines = [{ product: bySku('TEE-BLUE-M'), quantity: 1, discount: null }, { product: bySku('SOCK-MERINO'), quantity: 2, discount: null }, { product: bySku('CAP-NAVY'), quantity: 1, discount: null }];
    } else if (i === 1) {
      customer = customers[1];
      lines = [{ product: bySku('HOOD-FOREST-M'), quantity: 1, discount: null }, { product: bySku('BOTTLE-750'), quantity: 1, discount: null }];
    } else {
      customer = random.chance(0.05)
        ? { ...random.pick(customers), email: `guest${number}@example.net`, firstName: random.pick(FIRST_NAMES), lastName: 'Guest' }
        : random.weighted(customerWeights);
      const count = random.weighted([[1, 50], [2, 30], [3, 14], [4, 6]] as const);
      const chosen: DemoProduct[] = i % 30 === 7 ? [bySku(OVERSOLD_SKU)] : [];
      while (chosen.length < count) {
        const product = random.weighted(productWeights);
        if (!chosen.includes(product)) chosen.push(product);
      }
      lines = chosen.map((product) => ({ product, quantity: random.weighted([[1, 80], [2, 15], [3, 5]] as const), discount: null }));
    }
    const tags: string[] = [];
    if (i > 1 && random.chance(0.15)) {
      tags.push('discount:TRAIL10');
      lines = lines.map((line) => ({ ...line, discount: money(new Decimal(line.product.price).times(line.quantity).times('0.1')) }));
    }
    if (!seen.has(customer.email)) tags.push('first-order');
    seen.add(customer.email);
    const subtotal = lines.reduce((sum, line) => sum.plus(new Decimal(line.product.price).times(line.quantity)), new Decimal(0));
    const shipping = random.chance(0.1) ? { method: 'Express', cost: '14.95' } : subtotal.gte(75) ? { method: 'Free ground', cost: '0.00' } : { method: 'Ground', cost: '6.95' };
    const atService = lines.every((line) => line.product.atService) && random.chance(0.35);
    return { number, placedAt: new Date(context.now.getTime() - Math.round(age)), customer, lines, atService, shipping, tags };
  });
  const demand = { warehouse: new Map<string, number>(), service: new Map<string, number>() };
  for (const order of orders) {
    const at = order.atService ? demand.service : demand.warehouse;
    for (const line of order.lines) at.set(line.product.sku, (at.get(line.product.sku) ?? 0) + line.quantity);
  }
  return { orders, demand };
}

export function lineId(order: { number: number }, index: number): string {
  return `L-${order.number}-${index + 1}`;
}

const CARRIERS = [
  { name: 'UPS', code: (random: Random) => `1Z${random.int(100, 999)}AA${String(random.int(0, 99_999_999)).padStart(8, '0')}` },
  { name: 'USPS', code: (random: Random) => `9400${String(random.int(0, 999_999_999)).padStart(9, '0')}${String(random.int(0, 999_999_999)).padStart(9, '0')}` },
  { name: 'FedEx', code: (random: Random) => String(random.int(100_000_000_000, 999_999_999_999)) },
];

/** Writes the planned orders in their order (so #1001 is the oldest), then ships the ones older than two days. */
export async function seedOrders(context: DemoContext, planned: PlannedOrder[]): Promise<Map<number, Order>> {
  const { tx, storeId, random } = context;
  const written = new Map<number, Order>();
  for (const order of planned) {
    const subtotal = order.lines.reduce((sum, line) => sum.plus(new Decimal(line.product.price).times(line.quantity)), new Decimal(0));
    const discount = order.lines.reduce((sum, line) => sum.plus(line.discount ?? 0), new Decimal(0));
    const tax = subtotal.minus(discount).times(TAX_RATE).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    const created = await createOrder(tx, storeId, {
      orderId: `DEMO-${order.number}`,
      createdAt: order.placedAt,
      currency: 'USD',
      locationId: order.atService ? context.serviceLocationId : null,
      customer: {
        email: order.customer.email,
        firstName: order.customer.firstName,
        lastName: order.customer.lastName,
        name: `${order.customer.firstName} ${order.customer.lastName}`,
        phoneNumber: order.customer.phoneNumber,
      },
      lineItems: order.lines.map((line, i) => ({
        id: lineId(order, i),
        productId: `shop-${line.product.sku.toLowerCase()}`,
        variantId: line.product.variant ? `shop-${line.product.sku.toLowerCase()}-v` : null,
        sku: line.product.sku,
        title: line.product.title,
        quantity: line.quantity,
        price: line.product.price,
        discount: line.discount,
        imageUrl: line.product.imageUrl,
      })),
      shipping: { method: order.shipping.method, cost: order.shipping.cost, address: order.customer.address },
      billingAddress: order.customer.address,
      subtotalPrice: money(subtotal),
      totalDiscount: money(discount),
      totalTax: money(tax),
      totalPrice: money(subtotal.minus(discount).plus(tax).plus(order.shipping.cost)),
      tags: order.tags,
    });
    written.set(order.number, created);
  }

  for (const order of planned) {
    const age = context.now.getTime() - order.placedAt.getTime();
    if (age < 2 * DAY_MS) continue;
    const carrier = random.pick(CARRIERS);
    const shippedAt = new Date(order.placedAt.getTime() + random.int(4, 30) * HOUR_MS);
    const deliveredAt = new Date(shippedAt.getTime() + random.int(2, 4) * DAY_MS);
    const reference = `DEMO-${order.number}`;
    const fulfillmentId = `F-${order.number}`;
    const delivered = {
      status: 'delivered',
      datetime: deliveredAt,
      message: 'Delivered, left at front door',
      location: { city: order.customer.address.city, state: order.customer.address.province, country: 'US', postalCode: order.customer.address.postalCode },
    };
    // Shipped at most 30 hours after the order and on the way at most 4 days: older orders are
    // delivered. Those of the last weeks show their way there; the older ones only the delivery
    // (an update costs as much as the fulfillment itself, see the README).
    const arrived = age >= 6 * DAY_MS;
    const detailed = !arrived || age < 14 * DAY_MS;
    // Of the older orders, every third shows its delivery: each fulfillment is a dozen statements
    // of seeding, and the recent ones already show every state a shipment goes through.
    if (!detailed && order.number % 3 !== 0) continue;
    await createFulfillment(tx, storeId, reference, {
      fulfillmentId,
      lineItems: order.lines.map((line, i) => ({ id: lineId(order, i), quantity: line.quantity })),
      tracking: { carrier: carrier.name, code: carrier.code(random) },
      initialTracking: detailed
        ? {
            status: 'in_transit',
            datetime: shippedAt,
            message: 'Picked up by carrier',
            estimatedDeliveryDate: new Date(shippedAt.getTime() + 3 * DAY_MS),
            location: { city: order.atService ? 'Reno' : 'Oakland', state: order.atService ? 'NV' : 'CA', country: 'US' },
          }
        : delivered,
    });
    if (!arrived || !detailed) continue;
    if (random.chance(0.15)) {
      await updateShipmentStatus(tx, storeId, reference, fulfillmentId, { status: 'delayed', datetime: new Date(shippedAt.getTime() + DAY_MS), message: 'Weather delay at the regional hub' });
    }
    await updateShipmentStatus(tx, storeId, reference, fulfillmentId, delivered);
  }
  return written;
}

// The demo catalogue: merchant attributes, four product families whose variants take every
// combination of their options, two products of their own, images, and the stock the demo's
// orders need at the warehouse and at the fulfillment service's location (one level left
// oversold: its orders committed more than is on hand).
import type { DimensionUnit, WeightUnit } from '../../generated/prisma/client.ts';
import { addProductFamilyImage, addProductImage, createAttribute, createProduct, createProductFamily } from '../catalog.ts';
import { adjustInventory } from '../inventory.ts';
import type { DemoContext } from './context.ts';

export const IMAGE_BASE = 'https://images.example.com/demo';

export interface DemoProduct {
  id: string;
  sku: string;
  title: string;
  /** Exact decimal text. */
  price: string;
  /** The option values ("Red / M"); null for a product without a family. */
  variant: string | null;
  imageUrl: string;
  /** Sold through the fulfillment service too: it holds stock of it. */
  atService: boolean;
  /** How often orders pick it, relative to the others. */
  popularity: number;
}

interface FamilySpec {
  title: string;
  slug: string;
  skuPrefix: string;
  description: string;
  tags: string[];
  options: { name: string; values: string[] }[];
  price: string;
  cost: string;
  hsCode: string;
  originCountry: string;
  weight: { value: number; unit: WeightUnit };
  dimensions: { length: number; width: number; height: number; unit: DimensionUnit };
  attributes: { name: string; value: unknown }[];
  atService: boolean;
  popularity: number;
}

const FAMILIES: FamilySpec[] = [
  {
    title: 'Trail Tee',
    slug: 'trail-tee',
    skuPrefix: 'TEE',
    description: 'Organic cotton tee with a relaxed fit, made for long days on the trail.',
    tags: ['apparel', 'tees', 'bestseller'],
    options: [
      { name: 'Colour', values: ['Red', 'Blue', 'Green'] },
      { name: 'Size', values: ['S', 'M', 'L'] },
    ],
    price: '25.00',
    cost: '9.50',
    hsCode: '610910',
    originCountry: 'PT',
    weight: { value: 180, unit: 'G' },
    dimensions: { length: 30, width: 25, height: 2, unit: 'CM' },
    attributes: [
      { name: 'material', value: '100% organic cotton, 180 g/m²' },
      { name: 'care_instructions', value: 'Machine wash cold with like colours. Tumble dry low. Do not bleach.' },
      { name: 'launch_date', value: '2024-03-01' },
    ],
    atService: true,
    popularity: 5,
  },
  {
    title: 'Summit Hoodie',
    slug: 'summit-hoodie',
    skuPrefix: 'HOOD',
    description: 'Brushed-back fleece hoodie with a scuba hood and zipped chest pocket.',
    tags: ['apparel', 'hoodies'],
    options: [
      { name: 'Colour', values: ['Charcoal', 'Forest'] },
      { name: 'Size', values: ['S', 'M', 'L', 'XL'] },
    ],
    price: '68.00',
    cost: '24.00',
    hsCode: '611020',
    originCountry: 'PT',
    weight: { value: 620, unit: 'G' },
    dimensions: { length: 35, width: 30, height: 6, unit: 'CM' },
    attributes: [
      { name: 'material', value: '80% cotton, 20% recycled polyester fleece' },
      { name: 'care_instructions', value: 'Wash inside out at 30 °C. Do not tumble dry.' },
      { name: 'launch_date', value: '2024-09-15' },
    ],
    atService: false,
    popularity: 3,
  },
  {
    title: 'Ridge Runner Trail Shoe',
    slug: 'ridge-runner',
    skuPrefix: 'RUN',
    description: 'Lightweight trail running shoe with a waterproof membrane and a 5 mm lug outsole.',
    tags: ['footwear', 'running'],
    options: [
      { name: 'Size', values: ['8', '9', '10', '11'] },
      { name: 'Width', values: ['Regular', 'Wide'] },
    ],
    price: '120.00',
    cost: '48.00',
    hsCode: '640411',
    originCountry: 'VN',
    weight: { value: 310, unit: 'G' },
    dimensions: { length: 33, width: 21, height: 12, unit: 'CM' },
    attributes: [
      { name: 'material', value: 'Recycled mesh upper, EVA midsole' },
      { name: 'waterproof', value: true },
      { name: 'size_guide', value: 'https://demo-outfitters.example.com/size-guide/footwear' },
      { name: 'launch_date', value: '2025-02-10' },
    ],
    atService: false,
    popularity: 2,
  },
  {
    title: 'Canvas Cap',
    slug: 'canvas-cap',
    skuPrefix: 'CAP',
    description: 'Six-panel waxed canvas cap with an adjustable strap.',
    tags: ['accessories', 'headwear'],
    options: [{ name: 'Colour', values: ['Khaki', 'Navy'] }],
    price: '22.00',
    cost: '6.00',
    hsCode: '650500',
    originCountry: 'US',
    weight: { value: 90, unit: 'G' },
    dimensions: { length: 28, width: 20, height: 12, unit: 'CM' },
    attributes: [{ name: 'material', value: 'Waxed cotton canvas' }],
    atService: true,
    popularity: 3,
  },
];

interface SingleSpec {
  title: string;
  slug: string;
  sku: string;
  description: string;
  tags: string[];
  price: string;
  cost: string;
  hsCode: string;
  originCountry: string;
  weight: { value: number; unit: WeightUnit };
  attributes: { name: string; value: unknown }[];
  popularity: number;
}

const SINGLES: SingleSpec[] = [
  {
    title: 'Merino Hiking Socks',
    slug: 'merino-socks',
    sku: 'SOCK-MERINO',
    description: 'Cushioned merino wool hiking socks, two pairs.',
    tags: ['accessories', 'socks'],
    price: '18.00',
    cost: '5.50',
    hsCode: '611595',
    originCountry: 'IT',
    weight: { value: 120, unit: 'G' },
    attributes: [{ name: 'material', value: '70% merino wool, 28% nylon, 2% elastane' }],
    popularity: 4,
  },
  {
    title: 'Insulated Bottle 750 ml',
    slug: 'insulated-bottle',
    sku: 'BOTTLE-750',
    description: 'Double-walled stainless steel bottle: cold for 24 hours, hot for 12.',
    tags: ['accessories', 'gear'],
    price: '32.00',
    cost: '11.00',
    hsCode: '961700',
    originCountry: 'CN',
    weight: { value: 400, unit: 'G' },
    attributes: [
      { name: 'material', value: '18/8 stainless steel' },
      { name: 'waterproof', value: true },
    ],
    popularity: 2,
  },
];

const ATTRIBUTES = [
  { name: 'shipping_weight', displayName: 'Shipping weight', type: 'WEIGHT', description: 'Weight with packaging, for rate shopping' },
  { name: 'material', displayName: 'Material', type: 'SHORT_TEXT', description: null },
  { name: 'care_instructions', displayName: 'Care instructions', type: 'LONG_TEXT', description: null },
  { name: 'waterproof', displayName: 'Waterproof', type: 'BOOLEAN', description: null },
  { name: 'size_guide', displayName: 'Size guide', type: 'URL', description: 'Page with the size chart' },
  { name: 'launch_date', displayName: 'Launch date', type: 'DATE', description: null },
] as const;

/** The SKU whose stock the demo's orders oversell. */
export const OVERSOLD_SKU = 'RUN-11-WIDE';

function skuPart(value: string): string {
  return value.toUpperCase().replace(/[^A-Z0-9]+/g, '');
}

/** Every combination of the options' values, the first option varying slowest. */
function combinations(options: { name: string; values: string[] }[]): { name: string; value: string }[][] {
  return options.reduce<{ name: string; value: string }[][]>(
    (combos, option) => combos.flatMap((combo) => option.values.map((value) => [...combo, { name: option.name, value }])),
    [[]],
  );
}

/** Attributes, families with their options, images and variants, and the products without a family. */
export async function seedCatalog(context: DemoContext): Promise<DemoProduct[]> {
  const { tx, storeId } = context;
  for (const attribute of ATTRIBUTES) await createAttribute(tx, storeId, attribute);
  const products: DemoProduct[] = [];
  let barcode = 0;
  const upc = () => `84000${String(++barcode).padStart(7, '0')}`;

  for (const family of FAMILIES) {
    const created = await createProductFamily(tx, storeId, {
      title: family.title,
      description: family.description,
      vendor: 'Demo Outfitters',
      tags: family.tags,
      options: family.options,
      attributes: family.attributes,
    });
    for (const [position, view] of ['front', 'detail'].entries()) {
      await addProductFamilyImage(tx, storeId, created.id, { url: `${IMAGE_BASE}/${family.slug}-${view}.jpg`, altText: `${family.title}, ${view}`, position });
    }
    for (const combo of combinations(family.options)) {
      const variant = combo.map((o) => o.value).join(' / ');
      const sku = [family.skuPrefix, ...combo.map((o) => skuPart(o.value))].join('-');
      const title = `${family.title} ${variant}`;
      const code = upc();
      const product = await createProduct(tx, storeId, {
        title,
        description: family.description,
        sku,
        upc: code,
        barcodes: [code],
        vendor: 'Demo Outfitters',
        tags: [...family.tags, ...combo.map((o) => o.value.toLowerCase())],
        hsCode: family.hsCode,
        originCountry: family.originCountry,
        cost: family.cost,
        price: family.price,
        dimensions: family.dimensions,
        weight: family.weight,
        productFamilyId: created.id,
        options: combo,
        attributes: [{ name: 'shipping_weight', value: { value: Math.round(family.weight.value * 1.15), unit: family.weight.unit } }],
      });
      const imageUrl = `${IMAGE_BASE}/${family.slug}-${combo[0].value.toLowerCase()}.jpg`;
      await addProductImage(tx, storeId, product.id, { url: imageUrl, altText: title, position: 0 });
      products.push({ id: product.id, sku, title, price: family.price, variant, imageUrl, atService: family.atService, popularity: family.popularity });
    }
  }

  for (const single of SINGLES) {
    const code = upc();
    const product = await createProduct(tx, storeId, {
      title: single.title,
      description: single.description,
      sku: single.sku,
      upc: code,
      barcodes: [code],
      vendor: 'Demo Outfitters',
      tags: single.tags,
      hsCode: single.hsCode,
      originCountry: single.originCountry,
      cost: single.cost,
      price: single.price,
      weight: single.weight,
      attributes: [...single.attributes, { name: 'shipping_weight', value: { value: Math.round(single.weight.value * 1.1), unit: single.weight.unit } }],
    });
    const imageUrl = `${IMAGE_BASE}/${single.slug}.jpg`;
    await addProductImage(tx, storeId, product.id, { url: imageUrl, altText: single.title, position: 0 });
    await addProductImage(tx, storeId, product.id, { url: `${IMAGE_BASE}/${single.slug}-detail.jpg`, altText: `${single.title}, detail`, position: 1 });
    products.push({ id: product.id, sku: single.sku, title: single.title, price: single.price, variant: null, imageUrl, atService: true, popularity: single.popularity });
  }
  return products;
}

/**
 * Stock counted in before the orders came: at each location, what the orders will commit
 * there plus some to spare (a few levels run low), except the oversold product, which gets
 * fewer units at the warehouse than its orders commit, so its `available` goes below zero.
 */
export async function seedStock(context: DemoContext, products: DemoProduct[], demand: { warehouse: Map<string, number>; service: Map<string, number> }): Promise<void> {
  const { tx, storeId, random } = context;
  for (const product of products) {
    const ordered = demand.warehouse.get(product.sku) ?? 0;
    const onHand = product.sku === OVERSOLD_SKU ? Math.max(1, ordered - 4) : ordered + random.weighted([[random.int(0, 3), 1], [random.int(8, 40), 6]] as const);
    await adjustInventory(tx, storeId, { productId: product.id, locationId: context.warehouseId, quantityDelta: onHand, reason: 'initial_count', referenceId: 'demo-stocktake' });
    if (product.atService) {
      const atService = (demand.service.get(product.sku) ?? 0) + random.int(20, 90);
      await adjustInventory(tx, storeId, { productId: product.id, locationId: context.serviceLocationId, quantityDelta: atService, reason: 'initial_count', referenceId: 'rapid-asn-0001' });
    }
  }
  // A cycle count that found two units fewer than expected, and units held back for a wholesale order.
  const tee = products.find((p) => p.sku === 'TEE-BLUE-M')!;
  await adjustInventory(tx, storeId, { productId: tee.id, locationId: context.warehouseId, quantityDelta: -2, reason: 'cycle_count', referenceId: 'count-2031' });
  const hoodie = products.find((p) => p.sku === 'HOOD-CHARCOAL-L')!;
  await adjustInventory(tx, storeId, { productId: hoodie.id, locationId: context.warehouseId, quantityDelta: 12, reservedDelta: 12, reason: 'wholesale_hold', referenceId: 'WH-0042' });
}

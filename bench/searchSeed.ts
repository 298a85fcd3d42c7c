// The data of `npm run bench -- search` (bench/search.ts), written in set-based SQL
// (INSERT ... SELECT FROM generate_series, one statement per table) on one session: a
// million orders take minutes this way, days through the API. Every value is a function of
// the row's number g (hashint8extended(g, salt) stands in for randomness), so two runs make
// the same rows and two stores seeded alike share e-mails, SKUs and order names (what
// makes tenant isolation visible in plans).
//
// Shapes, for one store of N orders (customers and products in their own counts):
//   Customer     e-mail first.last<g>@<domain> (40% gmail.com), first names with accents
//                (Zoë, José, ...), last names from syllables (~500) or accented ones (García),
//                one E.164 phone +1<area>555<4 digits> (unique per store below 100,000),
//                CustomerPhoneNumber rows, a custom field (loyalty_tier) on every 4th
//   Product      families of 5 sizes (S ... XXL): title "<adjective> <colour> <noun>" (Tee,
//                Hoodie ...), SKU BLADE-000042-M, 12-digit UPC, an EAN-13 on every 3rd, vendor,
//                tags; ProductFamily, its Size option and ProductOptionValue rows
//   Order        '#1001'.., placed over ~2 years up to two weeks ago in the order of g, the
//                customer's e-mail, names and phone copied, exact amounts, tags on some
//   OrderLineItem 3 per order, title, SKU and price of a product
//   Return       one per order, 1-14 days after it: id = tag + 23 hex digits of g, number from
//                its sequence, status mostly complete (45%) or open (20%), UPS/USPS/FedEx
//                tracking numbers (none on half of the open ones), RMA-... on every 10th
//   ReturnItem   one per return, on one of its order's lines, with a reason
import type pg from 'pg';

export interface SeedSize {
  orders: number;
  customers: number;
  products: number;
}

export interface SeedStore {
  storeId: string;
  /** One hex letter (a-f): keeps the ids of stores apart, and starts the store's return ids. */
  tag: string;
  size: SeedSize;
  /** The seed's "now": orders end two weeks before it, returns by it. */
  now: Date;
}

export interface Timed {
  table: string;
  rows: number;
  ms: number;
}

const LINES_PER_ORDER = 3;
const SIZES_PER_FAMILY = 5;
const DAY_S = 86_400;

const FIRST_NAMES = ['Zoë', 'José', 'Chloé', 'Renée', 'Björn', 'Zoe', 'Amelia', 'Liam', 'Noah', 'Olivia', 'Emma', 'Ava', 'Sophia', 'Mia', 'Lucas', 'Ethan', 'Mason', 'Logan', 'Harper', 'Ella',
  'Aiden', 'Jackson', 'Maya', 'Nora', 'Leo', 'Inès', 'Mateo', 'Sofía', 'Camila', 'Diego', 'Hannah', 'Grace', 'Priya', 'Arjun', 'Wei', 'Yuki', 'Kenji', 'Fatima', 'Omar', 'Chiara'];
const LAST_FIRST = ['Hart', 'Bren', 'Kov', 'Lind', 'Mar', 'Quin', 'Stra', 'Wil', 'Zel', 'Fitz', 'Ash', 'Dal', 'Gor', 'Hol', 'Kess', 'Mor', 'Pem', 'Rad', 'Sel', 'Thorn'];
const LAST_SECOND = ['well', 'nan', 'acs', 'berg', 'tinez', 'lan', 'ton', 'son', 'ley', 'ford', 'wick', 'man', 'dale', 'by', 'stein', 'ridge', 'worth', 'ing', 'ick', 'more', 'ard', 'ow', 'in', 'ers', 'ham'];
const ACCENTED_LAST = ['García', 'Müller', 'Núñez', 'Løvström', 'Öztürk', 'Pérez', 'Dvořák', 'Čapek', 'Ångström', 'Gómez', 'Brontë', 'Façade'];
const DOMAINS = ['gmail.com', 'gmail.com', 'gmail.com', 'gmail.com', 'yahoo.com', 'outlook.com', 'icloud.com', 'hotmail.com', 'proton.me', 'fastmail.com'];
const AREAS = ['415', '212', '310', '646', '718', '305', '512', '617', '206', '303'];
const TIERS = ['gold', 'silver', 'bronze'];
const ADJECTIVES = ['Classic', 'Essential', 'Vintage', 'Everyday', 'Premium', 'Relaxed', 'Slim', 'Heavyweight', 'Organic', 'Performance', 'Cozy', 'Lightweight'];
const COLOURS = ['Black', 'White', 'Navy', 'Olive', 'Heather Grey', 'Sand', 'Rust', 'Forest', 'Steel Blue', 'Burgundy', 'Cream', 'Charcoal'];
const NOUNS = ['Tee', 'Hoodie', 'Cap', 'Sneaker', 'Jacket', 'Sock', 'Short', 'Jean', 'Backpack', 'Beanie', 'Scarf', 'Glove', 'Boot', 'Sandal', 'Polo', 'Sweater', 'Legging', 'Vest', 'Tote', 'Belt'];
const SKU_WORDS = ['BLADE', 'NOVA', 'ORBIT', 'PEAK', 'RIDGE', 'TERRA', 'VOLT', 'ZEN', 'ECHO', 'FLUX', 'ALPHA', 'CREST'];
const SIZES = ['S', 'M', 'L', 'XL', 'XXL'];
const VENDORS = ['Northwind Apparel', 'Blue Fjord', 'Atelier Léon', 'Summit Supply', 'Kite & Key', 'Harbor Goods', 'Oak Row', 'Pioneer Mills'];
const REASONS = ['Too small', 'Too large', 'Damaged', 'Not as described', 'Changed my mind', 'Wrong item'];
const UPS_SHIPPERS = ['A1B2C3', 'X9Y8Z7', '4R5T6Y', 'K2L3M4'];

/** SQL text of a constant list (our own words only: no quotes to escape but the doubled one). */
const list = (values: readonly string[]) => `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]::text[]`;
/** A non-negative pseudo-random bigint of `expr`, one stream per salt. */
const h = (expr: string, salt: number) => `(hashint8extended((${expr})::bigint, ${salt}) & 9223372036854775807)`;
/** One element of `values`, chosen by h(expr, salt). */
const pick = (values: readonly string[], expr: string, salt: number) => `(${list(values)})[1 + ${h(expr, salt)} % ${values.length}]`;
const ts = (date: Date) => `'${date.toISOString().replace('Z', '')}'::timestamp`;
/** The letters of our names without their accents (for e-mail addresses). */
const ascii = (expr: string) => `translate(${expr}, 'áàâäãåçéèêëíìîïñóòôöõøúùûüýčřšžÁÅÖČ', 'aaaaaaceeeeiiiinoooooouuuuycrszAAOC')`;
const seconds = (expr: string) => `((${expr}) * interval '1 second')`;

/** The store's ids: prefix, tag, g zero-padded to 20 characters in all (as newId's length). */
function ids(tag: string) {
  const id = (prefix: string, g: string) => `'${prefix}_${tag}' || lpad((${g})::text, 19, '0')`;
  return {
    customer: (g: string) => id('cus', g),
    product: (g: string) => id('prd', g),
    family: (f: string) => id('pfm', f),
    option: (f: string) => id('pfo', f),
    order: (g: string) => id('ord', g),
    line: (g: string, l: string) => `'oli_${tag}' || lpad((${g})::text, 18, '0') || (${l})`,
    return: (g: string) => `'${tag}' || lpad(to_hex(${g}), 23, '0')`,
    returnItem: (g: string) => id('rli', g),
    declaration: `'cfd_${tag}' || lpad('1', 19, '0')`,
  };
}

/** The id of the return of order g of a store seeded with `tag` (the bench names its targets by it). */
export function returnIdOf(tag: string, g: number): string {
  return tag + g.toString(16).padStart(23, '0');
}

export function orderIdOf(tag: string, g: number): string {
  return `ord_${tag}${String(g).padStart(19, '0')}`;
}

/**
 * Writes one store's rows, table by table, on `client` (whose session the caller has set
 * up: triggers off, work memory); `done` hears each table's count and time.
 */
export async function seedStore(client: pg.Client, store: SeedStore, done: (timed: Timed) => void): Promise<void> {
  const { storeId, tag, size, now } = store;
  if (!/^[a-f]$/.test(tag)) throw new Error(`a store's tag is one letter a-f, got "${tag}"`);
  const id = ids(tag);
  const N = size.orders;
  const C = Math.max(1, size.customers);
  const P = Math.max(SIZES_PER_FAMILY, size.products - (size.products % SIZES_PER_FAMILY));
  const families = P / SIZES_PER_FAMILY;
  const nowTs = ts(now);
  // Orders: ~2 years, in the order of g, up to two weeks before now.
  const orderStart = new Date(now.getTime() - 730 * DAY_S * 1000);
  const orderStep = Math.max(1, Math.floor(((730 - 14) * DAY_S) / N));
  const orderAt = (g: string) => `(${ts(orderStart)} + ${seconds(`(${g}) * ${orderStep} + ${h(g, 9)} % ${orderStep}`)})`;
  // Customers signed up over the half year before the first order and the two years since.
  const customerStart = new Date(orderStart.getTime() - 180 * DAY_S * 1000);
  const customerStep = Math.max(1, Math.floor((900 * DAY_S) / C));
  const customerAt = (g: string) => `(${ts(customerStart)} + ${seconds(`(${g}) * ${customerStep}`)})`;
  const productStep = Math.max(1, Math.floor((700 * DAY_S) / families));
  const productAt = (f: string) => `(${ts(customerStart)} + ${seconds(`(${f}) * ${productStep}`)})`;
  // A return: 1-14 days and some seconds after its order.
  const returnAt = (g: string) => `(${orderAt(g)} + (1 + ${h(g, 54)} % 14) * interval '1 day' + ${seconds(`${h(g, 55)} % ${DAY_S}`)})`;

  const step = async (table: string, sql: string, params: unknown[] = []) => {
    const started = performance.now();
    const result = await client.query(sql, params);
    done({ table, rows: result.rowCount ?? 0, ms: performance.now() - started });
  };

  await step(
    'Customer',
    `INSERT INTO "Customer" ("id", "storeId", "email", "firstName", "lastName", "name", "phoneNumbers", "createdAt", "updatedAt")
     SELECT ${id.customer('g')}, $1, lower(k.first_ascii) || '.' || lower(k.last_ascii) || g || '@' || ${pick(DOMAINS, 'g', 6)},
            k.first, k.last, k.first || ' ' || k.last,
            ARRAY['+1' || (${list(AREAS)})[1 + g % 10] || '555' || lpad(((g / 10) % 10000)::text, 4, '0')],
            ${customerAt('g')}, LEAST(${customerAt('g')} + (${h('g', 7)} % 400) * interval '1 day', ${nowTs})
     FROM generate_series(1, $2::int) AS g
     CROSS JOIN LATERAL (
       SELECT ${pick(FIRST_NAMES, 'g', 1)} AS first,
              ${ascii(pick(FIRST_NAMES, 'g', 1))} AS first_ascii,
              CASE WHEN ${h('g', 5)} % 10 = 0 THEN ${pick(ACCENTED_LAST, 'g', 4)} ELSE ${pick(LAST_FIRST, 'g', 2)} || ${pick(LAST_SECOND, 'g', 3)} END AS last,
              ${ascii(`CASE WHEN ${h('g', 5)} % 10 = 0 THEN ${pick(ACCENTED_LAST, 'g', 4)} ELSE ${pick(LAST_FIRST, 'g', 2)} || ${pick(LAST_SECOND, 'g', 3)} END`)} AS last_ascii
     ) AS k
     ORDER BY g`,
    [storeId, C],
  );
  await step(
    'CustomerPhoneNumber',
    `INSERT INTO "CustomerPhoneNumber" ("storeId", "phoneNumber", "customerId", "createdAt")
     SELECT $1, "phoneNumbers"[1], "id", "createdAt" FROM "Customer" WHERE "storeId" = $1
     ON CONFLICT DO NOTHING`,
    [storeId],
  );
  await step(
    'CustomFieldDeclaration+Option',
    `WITH d AS (INSERT INTO "CustomFieldDeclaration" ("id", "storeId", "name", "type") VALUES (${id.declaration}, $1, 'loyalty_tier', 'STRING') RETURNING "id")
     INSERT INTO "CustomFieldOption" ("declarationId", "value") SELECT d."id", t FROM d, unnest(${list(TIERS)}) AS t`,
    [storeId],
  );
  await step(
    'CustomFieldValue',
    `INSERT INTO "CustomFieldValue" ("customerId", "declarationId", "stringValue", "updatedAt")
     SELECT ${id.customer('g')}, ${id.declaration}, ${pick(TIERS, 'g', 8)}, ${customerAt('g')}
     FROM generate_series(4, $1::int, 4) AS g`,
    [C],
  );

  await step(
    'ProductFamily',
    `INSERT INTO "ProductFamily" ("id", "storeId", "externalId", "title", "vendor", "tags", "createdAt", "updatedAt")
     SELECT ${id.family('f')}, $1, 'shop-prd-' || f,
            ${pick(ADJECTIVES, 'f', 21)} || ' ' || ${pick(COLOURS, 'f', 22)} || ' ' || ${pick(NOUNS, 'f', 23)}, ${pick(VENDORS, 'f', 25)}, '{}',
            ${productAt('f')}, ${productAt('f')}
     FROM generate_series(1, $2::int) AS f ORDER BY f`,
    [storeId, families],
  );
  await step(
    'ProductFamilyOption',
    `INSERT INTO "ProductFamilyOption" ("id", "familyId", "name", "position", "values", "createdAt")
     SELECT ${id.option('f')}, ${id.family('f')}, 'Size', 0, ${list(SIZES)}, ${productAt('f')}
     FROM generate_series(1, $1::int) AS f ORDER BY f`,
    [families],
  );
  await step(
    'Product',
    `INSERT INTO "Product" ("id", "storeId", "familyId", "externalId", "title", "sku", "upc", "barcodes", "vendor", "tags", "price", "cost", "createdAt", "updatedAt")
     SELECT ${id.product('g')}, $1, ${id.family('f')}, 'shop-var-' || g,
            ${pick(ADJECTIVES, 'f', 21)} || ' ' || ${pick(COLOURS, 'f', 22)} || ' ' || ${pick(NOUNS, 'f', 23)},
            ${pick(SKU_WORDS, 'f', 24)} || '-' || lpad(f::text, 6, '0') || '-' || (${list(SIZES)})[1 + (g - 1) % 5],
            lpad(((g::bigint * 7919) % 100000000000)::text, 12, '0'),
            CASE WHEN g % 3 = 0 THEN ARRAY['40' || lpad(((g::bigint * 104729) % 100000000000)::text, 11, '0')] ELSE '{}'::text[] END,
            ${pick(VENDORS, 'f', 25)},
            CASE ${h('f', 26)} % 5 WHEN 0 THEN ARRAY['summer'] WHEN 1 THEN ARRAY['bestseller', 'organic'] ELSE '{}'::text[] END,
            round((${h('f', 27)} % 9000 + 999) / 100.0, 2), round((${h('f', 27)} % 9000 + 999) / 250.0, 2),
            ${productAt('f')}, ${productAt('f')}
     FROM generate_series(1, $2::int) AS g CROSS JOIN LATERAL (SELECT (g - 1) / 5 + 1 AS f) AS k
     ORDER BY g`,
    [storeId, P],
  );
  await step(
    'ProductOptionValue',
    `INSERT INTO "ProductOptionValue" ("productId", "optionId", "value")
     SELECT ${id.product('g')}, ${id.option('(g - 1) / 5 + 1')}, (${list(SIZES)})[1 + (g - 1) % 5]
     FROM generate_series(1, $1::int) AS g`,
    [P],
  );

  await step(
    'Order',
    `INSERT INTO "Order" ("id", "storeId", "externalId", "name", "placedAt", "currency", "totalPrice", "subtotalPrice", "totalTax", "totalDiscount", "tags",
                          "customerId", "customerExternalId", "customerEmail", "customerPhone", "customerName", "customerFirstName", "customerLastName",
                          "shippingMethod", "shippingCost", "createdAt", "updatedAt")
     SELECT ${id.order('o.g')}, $1, (4500000000 + o.g)::text, '#' || (1000 + o.g), o.at, 'USD',
            o.sub + round(o.sub * 0.08, 2) + o.ship - o.disc, o.sub, round(o.sub * 0.08, 2), o.disc,
            CASE WHEN o.g % 7 = 0 THEN ARRAY['vip'] WHEN o.g % 11 = 0 THEN ARRAY['wholesale', 'priority'] ELSE '{}'::text[] END,
            c."id", 'shop-cus-' || o.ci, c."email", c."phoneNumbers"[1], c."name", c."firstName", c."lastName",
            CASE WHEN o.ship = 0 THEN 'Free shipping' ELSE 'Standard' END, o.ship,
            o.at + interval '2 seconds', o.at + (${h('o.g', 35)} % 72) * interval '1 hour'
     FROM (
       SELECT g, ${orderAt('g')} AS at, 1 + ${h('g', 31)} % $2 AS ci,
              round((${h('g', 32)} % 30000 + 1500) / 100.0, 2) AS sub,
              CASE WHEN ${h('g', 33)} % 3 = 0 THEN 0 ELSE 5.99 END AS ship,
              CASE WHEN ${h('g', 34)} % 5 = 0 THEN 10.00 ELSE 0 END AS disc
       FROM generate_series(1, $3::int) AS g
     ) AS o
     JOIN "Customer" AS c ON c."id" = ${id.customer('o.ci')}
     ORDER BY o.g`,
    [storeId, C, N],
  );
  await step(
    'OrderLineItem',
    `INSERT INTO "OrderLineItem" ("id", "orderId", "position", "externalId", "externalProductId", "externalVariantId", "title", "quantity", "sku", "price", "productId")
     SELECT ${id.line('x.g', 'x.l')}, ${id.order('x.g')}, x.l - 1, 'li-' || x.g || '-' || x.l, 'shop-prd-' || ((x.pi - 1) / 5 + 1), p."externalId",
            p."title", 1 + ${h('x.g * 3 + x.l', 41)} % 3, p."sku", p."price", p."id"
     FROM (SELECT g, l, 1 + ${h('g * 3 + l', 42)} % $2 AS pi FROM generate_series(1, $1::int) AS g CROSS JOIN generate_series(1, ${LINES_PER_ORDER}) AS l) AS x
     JOIN "Product" AS p ON p."id" = ${id.product('x.pi')}
     ORDER BY x.g, x.l`,
    [N, P],
  );
  await step(
    'Return',
    `INSERT INTO "Return" ("id", "storeId", "orderId", "externalReferenceId", "status", "type", "currency", "carrier", "trackingNumber", "trackingUrl",
                           "labelUpdatedAt", "tags", "totalRefund", "createdAt", "updatedAt")
     SELECT ${id.return('s.g')}, $1, ${id.order('s.g')}, CASE WHEN s.g % 10 = 3 THEN 'RMA-' || lpad(s.g::text, 7, '0') END,
            s.status::"ReturnStatus", s.type::"ReturnType", 'USD',
            CASE WHEN s.labelled THEN s.carrier END, CASE WHEN s.labelled THEN s.tracking END,
            CASE WHEN s.labelled AND s.carrier = 'UPS' THEN 'https://www.ups.com/track?tracknum=' || s.tracking END,
            CASE WHEN s.labelled THEN s.at END,
            CASE WHEN s.g % 9 = 0 THEN ARRAY['exchange-requested'] WHEN s.g % 13 = 0 THEN ARRAY['fraud-check'] ELSE '{}'::text[] END,
            CASE WHEN s.status = 'complete' THEN round((${h('s.g', 56)} % 20000 + 500) / 100.0, 2) ELSE 0 END,
            s.at, LEAST(s.at + (${h('s.g', 57)} % 10) * interval '1 day' + interval '1 hour', ${nowTs})
     FROM (
       SELECT r.*, NOT (r.status = 'open' AND r.g % 2 = 0) AS labelled,
              CASE WHEN r.cb < 6 THEN 'UPS' WHEN r.cb < 9 THEN 'USPS' ELSE 'FedEx' END AS carrier,
              CASE WHEN r.cb < 6 THEN '1Z' || ${pick(UPS_SHIPPERS, 'r.g', 58)} || '03' || lpad(((r.g::bigint * 7919) % 100000000)::text, 8, '0')
                   WHEN r.cb < 9 THEN '9400' || lpad(((r.g::bigint * 104729) % 1000000000000000000)::text, 18, '0')
                   ELSE lpad(((r.g::bigint * 15485863) % 1000000000000)::text, 12, '0') END AS tracking
       FROM (
         SELECT g, ${returnAt('g')} AS at, ${h('g', 52)} % 10 AS cb,
                CASE WHEN ${h('g', 51)} % 100 < 45 THEN 'complete' WHEN ${h('g', 51)} % 100 < 65 THEN 'open' WHEN ${h('g', 51)} % 100 < 75 THEN 'in_transit'
                     WHEN ${h('g', 51)} % 100 < 83 THEN 'delivered' WHEN ${h('g', 51)} % 100 < 87 THEN 'needs_review' WHEN ${h('g', 51)} % 100 < 90 THEN 'in_review'
                     WHEN ${h('g', 51)} % 100 < 92 THEN 'flagged' WHEN ${h('g', 51)} % 100 < 97 THEN 'rejected' ELSE 'deleted' END AS status,
                CASE WHEN ${h('g', 53)} % 100 < 85 THEN 'return' WHEN ${h('g', 53)} % 100 < 95 THEN 'claim' ELSE 'warranty' END AS type
         FROM generate_series(1, $2::int) AS g
       ) AS r
     ) AS s
     ORDER BY s.g`,
    [storeId, N],
  );
  await step(
    'ReturnItem',
    `INSERT INTO "ReturnItem" ("id", "returnId", "orderLineItemId", "quantity", "reason", "customerComment", "outcome", "createdAt")
     SELECT ${id.returnItem('g')}, ${id.return('g')}, ${id.line('g', `1 + ${h('g', 61)} % ${LINES_PER_ORDER}`)}, 1, ${pick(REASONS, 'g', 62)},
            CASE WHEN ${h('g', 63)} % 5 = 0 THEN 'The fit was not what I expected' END,
            (CASE WHEN ${h('g', 64)} % 10 < 8 THEN 'refund' WHEN ${h('g', 64)} % 10 < 9 THEN 'credit' ELSE 'exchange' END)::"ReturnOutcome",
            ${returnAt('g')}
     FROM generate_series(1, $1::int) AS g ORDER BY g`,
    [N],
  );
}

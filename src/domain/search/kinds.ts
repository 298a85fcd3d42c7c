// What each list finds (the fields of the search syntax in syntax.ts), and the query turned
// into the reads compiler's `where`: every word and every text field term is first a match
// in the record's search document (the trigram index of the store's documents answers it),
// then, for a field, the same folded match on that field alone; exact terms (name, id,
// status, dates, amounts) use the columns' b-tree indexes. Values reach SQL only as
// parameters (src/db/reads/compile.ts).
import type { ReturnStatus, ReturnType } from '../../generated/prisma/client.ts';
import { Invalid } from '../errors.ts';
import { Decimal } from '../money.ts';
import { parseSearch, type Comparison, type SearchNode } from './syntax.ts';

/** A `where` of the reads compiler: Prisma's, plus the search document and the folded filters. */
type Where = Record<string, unknown>;

type FieldKind = 'text' | 'exact' | 'date' | 'amount' | 'choice';

interface SearchField {
  name: string;
  kind: FieldKind;
  /** One line for the schema's descriptions and the README. */
  help: string;
  /** `storeId`: the store searched, for conditions on related rows (a return's order) that its indexes lead with. */
  where(value: string, comparison: Comparison, term: string, storeId: string): Where;
}

export type SearchKind = 'orders' | 'returns' | 'customers' | 'products' | 'inventoryLevels';

function refuse(term: string, message: string): never {
  throw new Invalid(`query: "${term}": ${message}`, { path: 'query' });
}

/**
 * The document holds the folded word; a phrase's words in a row, whatever space or field
 * boundary lies between them (`"sam7 shopper"` spans a first and a last name).
 */
function inDocument(text: string): Where {
  const phrase = text.trim();
  return /\s/.test(phrase) ? { searchText: { containsPhrase: phrase } } : { searchText: { contains: text } };
}

/** A field that takes no comparison (`field:value` only). */
function equalityField(name: string, kind: FieldKind, help: string, where: (value: string, storeId: string) => Where): SearchField {
  return {
    name,
    kind,
    help,
    where: (value, comparison, term, storeId) => {
      onlyEquals(comparison, term);
      return where(value, storeId);
    },
  };
}

/** A folded part of a word of the field, found through the document first. */
function textField(name: string, help: string, narrow: (value: string, storeId: string) => Where): SearchField {
  return equalityField(name, 'text', help, (value, storeId) => ({ AND: [inDocument(value), narrow(value, storeId)] }));
}

const folded = (value: string) => ({ containsFolded: value });

/** A whole address (someone@host.tld) is that address, any case; anything else is a part of one. */
const emailMatch = (value: string) => (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? { equalsFolded: value } : folded(value));

function onlyEquals(comparison: Comparison, term: string): void {
  if (comparison !== '=') refuse(term, 'only dates and amounts take > >= < <=');
}

function exactField(name: string, help: string, where: (value: string, storeId: string) => Where): SearchField {
  return equalityField(name, 'exact', help, where);
}

type DateRange = { gte?: Date; gt?: Date; lt?: Date; lte?: Date; equals?: Date };

/** `2026-11-01` (that whole day, UTC) or an ISO 8601 time; `>` a day means after it. */
function dateRange(name: string, value: string, comparison: Comparison, term: string): DateRange {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const start = new Date(day ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(start.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    refuse(term, `${name} takes a date (2026-11-01) or an ISO 8601 time (2026-11-01T09:30:00Z)`);
  }
  const end = day ? new Date(start.getTime() + 86_400_000) : start;
  return {
    '=': day ? { gte: start, lt: end } : { equals: start },
    '>': day ? { gte: end } : { gt: start },
    '>=': { gte: start },
    '<': { lt: start },
    '<=': day ? { lt: end } : { lte: start },
  }[comparison];
}

function dateField(name: string, column: string, help: string): SearchField {
  return { name, kind: 'date', help, where: (value, comparison, term) => ({ [column]: dateRange(name, value, comparison, term) }) };
}

/**
 * A complete return by its closedAt, the time of its last change to complete: it has such a
 * change in the range and none after the range (a return completed, reset and completed again
 * belongs to its last completion only).
 */
function closedAtField(name: string, help: string): SearchField {
  return {
    name,
    kind: 'date',
    help,
    where: (value, comparison, term) => {
      const range = dateRange(name, value, comparison, term);
      const upper = range.lt ? { gte: range.lt } : range.lte ? { gt: range.lte } : range.equals ? { gt: range.equals } : undefined;
      return {
        status: { in: ['complete'] },
        AND: [
          { statusChanges: { some: { toStatus: 'complete', createdAt: range } } },
          ...(upper ? [{ statusChanges: { none: { toStatus: 'complete', createdAt: upper } } }] : []),
        ],
      };
    },
  };
}

function amountField(name: string, column: string, help: string): SearchField {
  return {
    name,
    kind: 'amount',
    help,
    where: (value, comparison, term) => {
      if (!/^\d{1,15}(\.\d{1,4})?$/.test(value)) refuse(term, `${name} takes an amount such as 100 or 12.50`);
      const amount = new Decimal(value);
      const op = { '=': 'equals', '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte' }[comparison];
      return { [column]: { [op]: amount } };
    },
  };
}

function choiceField(name: string, help: string, choices: Record<string, readonly string[]>, column: string): SearchField {
  return {
    name,
    kind: 'choice',
    help: `${help}: ${Object.keys(choices).join(', ')}`,
    where: (value, comparison, term) => {
      onlyEquals(comparison, term);
      const values = choices[value.toLowerCase()];
      if (!values) refuse(term, `${name} is one of ${Object.keys(choices).join(', ')}`);
      return { [column]: { in: [...values] } };
    },
  };
}

/** An order name as the merchant writes it, with or without its `#`. */
function orderNames(value: string): string[] {
  return value.startsWith('#') ? [value, value.slice(1)] : [value, `#${value}`];
}

const phoneField = (help: string): SearchField => equalityField('phone', 'text', help, (value) => phoneWhere(value));

/** A phone number's digits in the document (where phones are also written as digits), or the text as typed. */
function phoneWhere(raw: string): Where {
  const digits = raw.replace(/\D/g, '');
  if (digits.length === 0 || digits === raw) return inDocument(raw);
  return { OR: [inDocument(digits), inDocument(raw)] };
}

const customerNames = (value: string): Where => ({
  OR: [{ customerName: folded(value) }, { customerFirstName: folded(value) }, { customerLastName: folded(value) }],
});

const RETURN_STATUSES: Record<string, readonly ReturnStatus[]> = {
  open: ['open'],
  in_transit: ['in_transit'],
  delivered: ['delivered'],
  needs_review: ['needs_review'],
  in_review: ['in_review'],
  flagged: ['flagged'],
  complete: ['complete'],
  rejected: ['rejected'],
  deleted: ['deleted'],
  // The compat door's states, which people also say.
  closed: ['complete'],
  cancelled: ['rejected'],
  review: ['needs_review', 'in_review', 'flagged'],
};

const RETURN_TYPES: Record<string, readonly ReturnType[]> = { return: ['return'], claim: ['claim'], warranty: ['warranty'] };

const ORDER_FIELDS: SearchField[] = [
  exactField('name', 'the order name, with or without # (name:1001)', (value) => ({ name: { in: orderNames(value) } })),
  exactField('id', 'our order id (ord_...)', (value) => ({ id: value })),
  exactField('order_id', "the merchant's order id, exactly", (value) => ({ externalId: value })),
  textField('email', "the shopper's e-mail: a whole address exactly, or a part of one", (value) => ({ customerEmail: emailMatch(value) })),
  phoneField("the shopper's phone, however it is written"),
  textField('customer', "part of the shopper's name", customerNames),
  textField('sku', "part of a line's SKU", (value) => ({ lineItems: { some: { sku: folded(value) } } })),
  textField('title', "part of a line's title", (value) => ({ lineItems: { some: { title: folded(value) } } })),
  textField('tag', 'a tag, whole', (value) => ({ tags: { equalsFolded: value } })),
  dateField('created_at', 'placedAt', "when the order was placed (placedAt, the merchant's createdAt)"),
  dateField('updated_at', 'updatedAt', 'when it last changed'),
  amountField('total', 'totalPrice', 'the order total'),
];

/** A condition on the return's order, within the store, so the order's (storeId, ...) indexes answer it. */
const onOrder = (storeId: string, where: Where): Where => ({ order: { is: { storeId, ...where } } });

const RETURN_FIELDS: SearchField[] = [
  exactField('name', "the order's name, with or without # (name:1001)", (value, storeId) => onOrder(storeId, { name: { in: orderNames(value) } })),
  exactField('order_id', "the order: our id (ord_...) or the merchant's order id, exactly", (value, storeId) => ({
    OR: [{ orderId: value }, onOrder(storeId, { externalId: value })],
  })),
  exactField('id', 'the return: its id (24 hex digits) or its number', (value) => ({
    OR: [{ id: value }, ...(/^\d{1,9}$/.test(value) ? [{ number: Number(value) }] : [])],
  })),
  textField('email', "the shopper's e-mail: a whole address exactly, or a part of one", (value, storeId) => ({
    OR: [{ customerEmail: emailMatch(value) }, onOrder(storeId, { customerEmail: emailMatch(value) })],
  })),
  phoneField("the shopper's phone (the order's), however it is written"),
  textField('customer', "part of the shopper's name", (value, storeId) => ({
    OR: [{ customerFirstName: folded(value) }, { customerLastName: folded(value) }, onOrder(storeId, customerNames(value))],
  })),
  textField('tracking', 'part of the tracking number', (value) => ({ trackingNumber: folded(value) })),
  textField('carrier', 'part of the carrier', (value) => ({ carrier: folded(value) })),
  textField('rma', "part of the merchant's return (RMA) reference", (value) => ({ externalReferenceId: folded(value) })),
  textField('sku', "part of an item's SKU", (value) => ({
    items: { some: { OR: [{ sku: folded(value) }, { orderLineItem: { is: { sku: folded(value) } } }] } },
  })),
  textField('title', "part of an item's title", (value) => ({
    items: { some: { OR: [{ title: folded(value) }, { orderLineItem: { is: { title: folded(value) } } }] } },
  })),
  textField('reason', "part of an item's reason", (value) => ({ items: { some: { OR: [{ reason: folded(value) }, { reasonCode: folded(value) }] } } })),
  textField('tag', 'a tag, whole', (value) => ({ tags: { equalsFolded: value } })),
  choiceField('status', 'the status', RETURN_STATUSES, 'status'),
  choiceField('type', 'the type', RETURN_TYPES, 'type'),
  dateField('created_at', 'createdAt', 'when the return was made'),
  dateField('updated_at', 'updatedAt', 'when it last changed'),
  closedAtField('closed_at', 'when a complete return was last completed (closedAt)'),
];

const CUSTOMER_FIELDS: SearchField[] = [
  exactField('id', 'our customer id (cus_...)', (value) => ({ id: value })),
  textField('email', 'the e-mail: a whole address exactly, or a part of one', (value) => ({ email: emailMatch(value) })),
  textField('name', 'part of the first, last or display name', (value) => ({
    OR: [{ name: folded(value) }, { firstName: folded(value) }, { lastName: folded(value) }],
  })),
  textField('first_name', 'part of the first name', (value) => ({ firstName: folded(value) })),
  textField('last_name', 'part of the last name', (value) => ({ lastName: folded(value) })),
  phoneField('a phone number, however it is written'),
  dateField('created_at', 'createdAt', 'when the customer was created'),
  dateField('updated_at', 'updatedAt', 'when it last changed'),
];

const PRODUCT_FIELDS: SearchField[] = [
  exactField('id', 'our product id (prd_...)', (value) => ({ id: value })),
  textField('title', 'part of the title', (value) => ({ title: folded(value) })),
  textField('sku', 'part of the SKU', (value) => ({ sku: folded(value) })),
  textField('barcode', 'part of the UPC or a barcode', (value) => ({ OR: [{ upc: folded(value) }, { barcodes: folded(value) }] })),
  textField('vendor', 'part of the vendor', (value) => ({ vendor: folded(value) })),
  textField('tag', 'a tag, whole', (value) => ({ tags: { equalsFolded: value } })),
  textField('option', 'part of an option value (option:blue)', (value) => ({ options: { some: { value: folded(value) } } })),
  dateField('created_at', 'createdAt', 'when the product was created'),
  dateField('updated_at', 'updatedAt', 'when it last changed'),
  amountField('price', 'price', 'the selling price'),
];

const onProduct = (where: Where): Where => ({ product: { is: where } });

/**
 * What of a product a level's reader may see whoever owns it (a fulfillment service sees other
 * stores' levels at its locations: only their inventoryProduct's title, SKU and codes), so a
 * search never tells it more: the product's document finds, these fields decide.
 */
const visibleProductText = (value: string): Where => ({
  AND: [inDocument(value), { OR: [{ title: folded(value) }, { sku: folded(value) }, { upc: folded(value) }, { barcodes: folded(value) }] }],
});

/** An inventory level is found by its product's title, SKU and codes, and by its location. */
const INVENTORY_LEVEL_FIELDS: SearchField[] = [
  ...PRODUCT_FIELDS.filter((f) => ['title', 'sku', 'barcode'].includes(f.name)).map((f) => ({
    ...f,
    help: `the product's: ${f.help}`,
    where: (value: string, comparison: Comparison, term: string, storeId: string) => onProduct(f.where(value, comparison, term, storeId)),
  })),
  exactField('location_id', 'the location (loc_...)', (value) => ({ locationId: value })),
  equalityField('location', 'text', "part of the location's name", (value) => ({ location: { is: { name: folded(value) } } })),
];

const FIELDS: Record<SearchKind, SearchField[]> = {
  orders: ORDER_FIELDS,
  returns: RETURN_FIELDS,
  customers: CUSTOMER_FIELDS,
  products: PRODUCT_FIELDS,
  inventoryLevels: INVENTORY_LEVEL_FIELDS,
};


/** What free words match, per list, for the descriptions. */
const FREE_TEXT: Record<SearchKind, string> = {
  orders: "the name, the merchant's order id, the shopper's e-mail, name and phone, tags, the lines' SKUs and titles",
  returns:
    "the order's name, merchant id, shopper e-mail, name and phone, the tracking number and carrier, the RMA reference, tags, the items' SKUs, titles and reasons",
  customers: 'the e-mail, names, phone numbers and custom field values',
  products: 'the title, SKU, UPC and barcodes, vendor, tags and option values',
  inventoryLevels: "the product's title, SKU, UPC and barcodes",
};

/** The `query:` argument's description for one list: the syntax, what free words match, its fields. */
export function searchHelp(kind: SearchKind): string {
  const fields = FIELDS[kind].map((f) => `${f.name} (${f.help})`).join('; ');
  return (
    `Search: words and "quoted phrases" match ${FREE_TEXT[kind]}, ignoring case and accents; a part of a word of 3 or more ` +
    'characters is enough (gmai finds @gmail.com). field:value narrows to one field, field:>=value (> >= < <=) compares dates ' +
    '(2026-11-01, UTC) and amounts; -term or NOT term excludes; a OR b; terms side by side must all hold; parentheses group. ' +
    `A phone number may be written any way (+1 415-555-0107). Fields: ${fields}. At most 1000 characters and 30 terms; ` +
    'a malformed query or an unknown field gives BAD_USER_INPUT naming the term.'
  );
}

export function searchFieldNames(kind: SearchKind): string[] {
  return FIELDS[kind].map((f) => f.name);
}

/**
 * The `where` of `query` on `kind` in the store, or undefined for a blank query (which narrows
 * nothing). A query that gives no index anything to look up (see `lookedUp`) is refused: it
 * would check every record of the store.
 */
export function searchWhere<W>(kind: SearchKind, storeId: string, query: string | null | undefined): W | undefined {
  if (query == null) return undefined;
  const parsed = parseSearch(query);
  if (!parsed) return undefined;
  const tree = simplified(parsed);
  const where = toWhere(kind, storeId, tree);
  if (!lookedUp(kind, tree)) {
    throw new Invalid(`query: "${query}": ${UNINDEXED}; ${SEARCH_ADVICE}`, { path: 'query' });
  }
  return where as W;
}

const UNINDEXED = 'nothing in it can be looked up in an index (a word of fewer than 3 letters or digits, and a term only excluded, are checked record by record)';
/** What makes a search one an index answers: said by every refusal of a search that would read the whole store. */
export const SEARCH_ADVICE = 'add a word of 3 or more letters or digits, a field:value (such as email:, sku: or status:) or a date range (created_at:>=2026-11-01)';

/** A trigram of the folded text: what the documents' index looks a word up by. */
const hasTrigram = (text: string) => /[\p{L}\p{N}]{3}/u.test(text);

/**
 * True when every record the query finds is among those an index finds for one of its
 * positive terms: a word or phrase with a trigram, a phone number, a field term that is exact,
 * a date, an amount, a status or type (either way: its complement is a few statuses too), or a
 * text field term with a trigram. Terms side by side need one such; OR needs one on each side.
 */
function lookedUp(kind: SearchKind, node: SearchNode): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.some((item) => lookedUp(kind, item));
    case 'or':
      return node.items.every((item) => lookedUp(kind, item));
    case 'not':
      return node.item.kind === 'field' && FIELDS[kind].find((f) => f.name === (node.item as { field: string }).field)?.kind === 'choice';
    case 'text':
      return hasTrigram(node.text);
    case 'phone':
      return true;
    case 'field': {
      const field = FIELDS[kind].find((f) => f.name === node.field);
      return field?.kind !== 'text' || hasTrigram(node.value);
    }
  }
}

const keyOf = (node: SearchNode) => JSON.stringify(node);

/**
 * The same query with each repeated term once (`ab ab ab` is `ab`), and groups of one kind
 * inside another of the same kind merged: each term is one condition of the statement.
 */
function simplified(node: SearchNode): SearchNode {
  if (node.kind === 'not') return { kind: 'not', item: simplified(node.item) };
  if (node.kind !== 'and' && node.kind !== 'or') return node;
  const items = new Map<string, SearchNode>();
  for (const item of node.items.map(simplified)) {
    for (const inner of item.kind === node.kind ? item.items : [item]) items.set(keyOf(inner), inner);
  }
  const unique = [...items.values()];
  return unique.length === 1 ? unique[0] : { kind: node.kind, items: unique };
}

/** True when the node narrows by the product alone (an inventory level's free words and product fields). */
function onProductSide(node: SearchNode): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.every(onProductSide);
    case 'not':
      return onProductSide(node.item);
    case 'text':
    case 'phone':
      return true;
    case 'field':
      return PRODUCT_SIDE_FIELDS.has(node.field);
  }
}

const PRODUCT_SIDE_FIELDS = new Set(['title', 'sku', 'barcode']);

/** The condition on the product of an inventory level, for a node that narrows by the product alone. */
function productWhere(storeId: string, node: SearchNode): Where {
  switch (node.kind) {
    case 'and':
      return { AND: node.items.map((item) => productWhere(storeId, item)) };
    case 'or':
      return { OR: node.items.map((item) => productWhere(storeId, item)) };
    case 'not':
      return { NOT: productWhere(storeId, node.item) };
    case 'text':
      return visibleProductText(node.text);
    case 'phone':
      return visibleProductText(node.raw);
    case 'field':
      return PRODUCT_FIELDS.find((f) => f.name === node.field)!.where(node.value, node.comparison, node.term, storeId);
  }
}

function toWhere(kind: SearchKind, storeId: string, node: SearchNode): Where {
  // An inventory level's product terms are one condition on its product, not one each: the
  // planner weighs every way to join each of thirty conditions on one table.
  if (kind === 'inventoryLevels' && onProductSide(node)) return onProduct(productWhere(storeId, node));
  switch (node.kind) {
    case 'and':
    case 'or': {
      const key = node.kind === 'and' ? 'AND' : 'OR';
      if (kind !== 'inventoryLevels') return { [key]: node.items.map((item) => toWhere(kind, storeId, item)) };
      const product = node.items.filter(onProductSide);
      const rest = node.items.filter((item) => !onProductSide(item)).map((item) => toWhere(kind, storeId, item));
      if (product.length === 0) return { [key]: rest };
      const grouped = product.length === 1 ? product[0] : { kind: node.kind, items: product };
      return { [key]: [onProduct(productWhere(storeId, grouped)), ...rest] };
    }
    case 'not':
      return { NOT: toWhere(kind, storeId, node.item) };
    case 'text':
      return inDocument(node.text);
    case 'phone':
      return phoneWhere(node.raw);
    case 'field': {
      const field = FIELDS[kind].find((f) => f.name === node.field);
      if (!field) refuse(node.term, `${kind} have no search field "${node.field}"; fields: ${searchFieldNames(kind).join(', ')}`);
      return field.where(node.value, node.comparison, node.term, storeId);
    }
  }
}

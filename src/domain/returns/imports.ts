// Importing returns created outside the service: no order, items naming the store's products.
import crypto from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.ts';
import { countryCode, currencyCode, InputIssues, optionalText, requiredText } from '../inputChecks.ts';
import { isEmail, normalizeEmail } from '../customers.ts';
import { Invalid, isDomainError, NotFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { type Db, type Tx } from '../tx.ts';
import { MAX_ITEMS, MAX_KEY_LENGTH, MAX_NOTE_LENGTH, MAX_REASON_LENGTH, createOnce, recordCreation } from './creation.ts';
import { barcodeOf } from './asn.ts';

export const MAX_IMPORTED_RETURNS = 100;
const IMPORT_OPERATION = 'importReturn';

export interface ImportedReturnItemInput {
  /** Our product id (prd_), as the bulk product upload answered it. */
  productId: string;
  quantity: number;
  /** Overrides of what the product says of itself. */
  sku?: string | null;
  barcode?: string | null;
  productTitle?: string | null;
  variantTitle?: string | null;
  reason?: string | null;
  condition?: string | null;
}

export interface ImportedReturnAddressInput {
  name?: string | null;
  line1: string;
  line2?: string | null;
  city: string;
  state?: string | null;
  postalCode?: string | null;
  country: string;
  phone?: string | null;
}

export interface ImportReturnInput {
  items: ImportedReturnItemInput[];
  customer?: { firstName?: string | null; lastName?: string | null; email?: string | null } | null;
  /** The merchant's own return/RMA id. */
  externalReferenceId?: string | null;
  trackingNumber?: string | null;
  carrier?: string | null;
  /** Becomes the return's first note. */
  notes?: string | null;
  idempotencyKey?: string | null;
  /** ISO 4217; USD when omitted. */
  currency?: string | null;
  /** Where the customer ships the return from. */
  shippingAddress?: ImportedReturnAddressInput | null;
  /** Where the return goes; the store's default location when omitted. */
  merchantAddress?: ImportedReturnAddressInput | null;
}

export type ImportedReturnResult = { status: 'created'; returnId: string; replayed: boolean } | { status: 'error'; error: string };

function importedAddress(issues: InputIssues, path: string, input: ImportedReturnAddressInput | null | undefined) {
  if (!input) return null;
  return {
    name: optionalText(issues, `${path}.name`, input.name ?? null) ?? null,
    line1: requiredText(issues, `${path}.line1`, input.line1),
    line2: optionalText(issues, `${path}.line2`, input.line2 ?? null) ?? null,
    city: requiredText(issues, `${path}.city`, input.city),
    state: optionalText(issues, `${path}.state`, input.state ?? null) ?? null,
    postalCode: optionalText(issues, `${path}.postalCode`, input.postalCode ?? null, 32) ?? null,
    country: countryCode(issues, `${path}.country`, input.country) ?? null,
    phone: optionalText(issues, `${path}.phone`, input.phone ?? null, 32) ?? null,
  };
}

/** Every problem of one imported return's values, or its columns. */
function validateImport(input: ImportReturnInput) {
  const issues = new InputIssues();
  if (input.items.length === 0) issues.add('products', 'must list at least one product');
  if (input.items.length > MAX_ITEMS) issues.add('products', `must list at most ${MAX_ITEMS} products`);
  const items = input.items.map((item, i) => {
    const path = `products.${i}`;
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1) issues.add(`${path}.quantity`, 'must be an integer of at least 1');
    return {
      productId: requiredText(issues, `${path}.productId`, item.productId),
      quantity: item.quantity,
      sku: optionalText(issues, `${path}.sku`, item.sku ?? null) ?? null,
      barcode: optionalText(issues, `${path}.barcode`, item.barcode ?? null) ?? null,
      title: optionalText(issues, `${path}.productTitle`, item.productTitle ?? null, 1000) ?? null,
      variantTitle: optionalText(issues, `${path}.variantTitle`, item.variantTitle ?? null, 1000) ?? null,
      reason: optionalText(issues, `${path}.reason`, item.reason ?? null, MAX_REASON_LENGTH) ?? null,
      condition: optionalText(issues, `${path}.condition`, item.condition ?? null) ?? null,
    };
  });
  const email = optionalText(issues, 'customer.email', input.customer?.email ?? null);
  if (email && !isEmail(normalizeEmail(email))) issues.add('customer.email', 'must be a valid e-mail address');
  const notes = optionalText(issues, 'notes', input.notes ?? null, MAX_NOTE_LENGTH) ?? null;
  const idempotencyKey = optionalText(issues, 'idempotencyKey', input.idempotencyKey ?? null, MAX_KEY_LENGTH) ?? null;
  const columns = {
    externalReferenceId: optionalText(issues, 'externalReferenceId', input.externalReferenceId ?? null) ?? null,
    trackingNumber: optionalText(issues, 'trackingNumber', input.trackingNumber ?? null) ?? null,
    carrier: optionalText(issues, 'carrier', input.carrier ?? null) ?? null,
    currency: currencyCode(issues, 'currency', input.currency) ?? 'USD',
    customerEmail: email ? normalizeEmail(email) : null,
    customerFirstName: optionalText(issues, 'customer.firstName', input.customer?.firstName ?? null) ?? null,
    customerLastName: optionalText(issues, 'customer.lastName', input.customer?.lastName ?? null) ?? null,
  };
  const origin = importedAddress(issues, 'shippingAddress', input.shippingAddress);
  const destination = importedAddress(issues, 'merchantAddress', input.merchantAddress);
  issues.throwIfAny();
  return { items, notes, idempotencyKey, columns, origin, destination };
}

// `ReturnType` names the return's type here (the Prisma enum), so the checked input's type is inferred by hand.
type ValidImport = typeof validateImport extends (input: ImportReturnInput) => infer Valid ? Valid : never;

async function insertImportedReturn(tx: Tx, storeId: string, id: string, input: ValidImport): Promise<void> {
  const products = await tx.product.findMany({ where: { storeId, id: { in: input.items.map((item) => item.productId) } } });
  const issues = new InputIssues();
  input.items.forEach((item, i) => {
    if (!products.some((p) => p.id === item.productId)) issues.add(`products.${i}.productId`, `product ${item.productId} not found`);
  });
  if (issues.list.length > 0) throw new NotFound(issues.list.map((i) => `${i.path}: ${i.message}`).join('; '), { issues: issues.list });
  const store = await tx.store.findUniqueOrThrow({ where: { id: storeId }, select: { defaultLocationId: true } });
  const created = await tx.return.create({
    data: {
      id,
      storeId,
      ...input.columns,
      destinationLocationId: input.destination ? null : store.defaultLocationId,
      destinationAddress: input.destination ?? Prisma.DbNull,
      originAddress: input.origin ?? Prisma.DbNull,
      ...(input.notes ? { notes: { create: { id: newId('returnNote'), content: input.notes } } } : {}),
      items: {
        create: input.items.map((item, position) => {
          const product = products.find((p) => p.id === item.productId)!;
          return {
            id: newId('returnItem'),
            position,
            productId: product.id,
            quantity: item.quantity,
            reason: item.reason,
            condition: item.condition,
            title: item.title ?? product.title,
            variantTitle: item.variantTitle,
            sku: item.sku ?? product.sku,
            barcode: item.barcode ?? barcodeOf(product),
            unitPrice: product.price,
          };
        }),
      },
    },
    select: { id: true, storeId: true, number: true, status: true, type: true, carrier: true, trackingNumber: true, labelStatus: true },
  });
  await recordCreation(tx, storeId, created, null);
}

/**
 * Imports returns created outside (a warehouse scan, an ERP ...): no order, items naming the
 * store's products. Each return is created in its own transaction, with its own result, so
 * one bad return leaves the others; its idempotency key makes a retry answer the return made.
 */
export async function importReturns(db: Db, storeId: string, inputs: ImportReturnInput[]): Promise<ImportedReturnResult[]> {
  if (inputs.length < 1 || inputs.length > MAX_IMPORTED_RETURNS) {
    throw new Invalid(`must list 1 to ${MAX_IMPORTED_RETURNS} returns`, { path: 'returns' });
  }
  const results: ImportedReturnResult[] = [];
  for (const input of inputs) {
    try {
      const valid = validateImport(input);
      const hash = crypto.createHash('sha256').update(JSON.stringify(valid)).digest('hex');
      const created = await createOnce(db, storeId, valid.idempotencyKey, { operation: IMPORT_OPERATION, hash }, (tx, id) => insertImportedReturn(tx, storeId, id, valid));
      results.push({ status: 'created', returnId: created.id, replayed: created.replayed });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      results.push({ status: 'error', error: error.message });
    }
  }
  return results;
}

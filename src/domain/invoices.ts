// What the service charges a store: coverage premiums sold and a processing fee per
// return (BillingSetting). Each charge is an InvoiceItem written in the transaction of
// the sale or return causing it, on the store's invoice of that calendar month (UTC) and
// currency. An invoice's charge is the exact sum of its items; the invoice of the
// current month is `pending`, earlier ones are `issued` and no longer change.
import type { BillingSetting, InvoiceItemKind } from '../generated/prisma/client.ts';
import { Invalid } from './errors.ts';
import { newId } from './ids.ts';
import { Decimal, type DecimalValue } from './money.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export type InvoiceStatus = 'pending' | 'issued';

/** First instant (UTC) of the calendar month holding `at`. */
export function monthOf(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

export function nextMonth(month: Date): Date {
  return new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
}

/** `month` as Prisma answers it, or as `reads` does (ISO 8601 text). */
export function invoiceStatus(invoice: { month: Date | string }, now = new Date()): InvoiceStatus {
  return nextMonth(new Date(invoice.month)) > now ? 'pending' : 'issued';
}

export function sumAmounts(items: readonly { amount: DecimalValue | string }[]): DecimalValue {
  return items.reduce((sum, item) => sum.plus(item.amount), new Decimal(0));
}

export interface Charge {
  storeId: string;
  currency: string;
  kind: InvoiceItemKind;
  description: string;
  subjectId: string;
  amount: DecimalValue;
  occurredAt: Date;
}

export async function chargeInvoiceItem(tx: Tx, charge: Charge): Promise<void> {
  const month = monthOf(charge.occurredAt);
  const key = { storeId: charge.storeId, month, currency: charge.currency };
  // A concurrent first charge of the month may insert the invoice too: skipDuplicates
  // keeps one, and the update below then locks it for the rest of the transaction.
  await tx.invoice.createMany({ data: [{ id: newId('invoice'), ...key }], skipDuplicates: true });
  const invoice = await tx.invoice.update({ where: { storeId_month_currency: key }, data: { updatedAt: new Date() }, select: { id: true } });
  await tx.invoiceItem.create({
    data: {
      id: newId('invoiceItem'),
      invoiceId: invoice.id,
      kind: charge.kind,
      description: charge.description,
      subjectId: charge.subjectId,
      amount: charge.amount,
      occurredAt: charge.occurredAt,
    },
  });
}

export async function billingSetting(db: Db | Tx, storeId: string): Promise<BillingSetting> {
  return (await db.billingSetting.findUnique({ where: { storeId } })) ?? { storeId, returnProcessingFee: new Decimal(0), updatedAt: new Date(0) };
}

/** Charges the store's per-return processing fee (none while it is zero). Runs inside the return's transaction. */
export async function chargeReturnProcessingFee(tx: Tx, storeId: string, ret: { id: string; number: number }, now = new Date()): Promise<void> {
  const setting = await billingSetting(tx, storeId);
  if (setting.returnProcessingFee.isZero()) return;
  const store = await tx.store.findUniqueOrThrow({ where: { id: storeId }, select: { currency: true } });
  await chargeInvoiceItem(tx, {
    storeId,
    currency: store.currency,
    kind: 'RETURN_PROCESSING_FEE',
    description: `Processing fee of return ${ret.number}`,
    subjectId: ret.id,
    amount: setting.returnProcessingFee,
    occurredAt: now,
  });
}

export async function updateBillingSettings(db: Db | Tx, storeId: string, input: { returnProcessingFee: string }): Promise<BillingSetting> {
  const text = input.returnProcessingFee;
  if (!/^\d+(\.\d{1,4})?$/.test(text)) {
    throw Invalid.of([{ path: 'returnProcessingFee', message: `"${text}" is not a non-negative decimal amount with at most 4 decimal places` }]);
  }
  const returnProcessingFee = new Decimal(text);
  return inTransaction(db, (tx) => tx.billingSetting.upsert({ where: { storeId }, create: { storeId, returnProcessingFee }, update: { returnProcessingFee } }));
}

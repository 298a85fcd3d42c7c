// The operations on a return: process, flag, reject, reset, delete, remove items, notes,
// labels and tags, each in one transaction that locks the return first and checks before it writes.
import { Prisma, type ReturnOutcome, type ReturnStatus } from '../../generated/prisma/client.ts';
import { InputIssues, optionalText, requiredText } from '../inputChecks.ts';
import { Invalid, UnprocessableState, type FieldIssue } from '../errors.ts';
import { newId } from '../ids.ts';
import { inTransaction, type Db, type Tx } from '../tx.ts';
import { type StatusOperation, TARGET_STATUS, assertAllowed, canApply } from './status.ts';
import { ITEM_AMOUNT_SELECT, outcomeChoiceIssues, processingAmounts } from './amounts.ts';
import { type LockedReturn, type ReturnRef, claimedQuantities, emitUpdated, lockOrder, lockReturn, recordChange, returnableUnits } from './locking.ts';
import { MAX_NOTE_LENGTH, type ReturnLabelInput, emitLabel } from './creation.ts';

async function changeStatus(
  tx: Tx,
  target: { id: string; storeId: string; number: number; status: ReturnStatus },
  operation: StatusOperation,
  data: Omit<Prisma.ReturnUpdateInput, 'status'> = {},
): Promise<void> {
  const to = TARGET_STATUS[operation];
  await tx.return.update({ where: { id: target.id }, data: { ...data, status: to } });
  await recordChange(tx, target.id, { operation, from: target.status, to });
  await emitUpdated(tx, target, { status: to, previousStatus: target.status, operation });
}

/** Completes the locked return, recording what is refunded and what is credited. */
async function completeReturn(tx: Tx, target: LockedReturn): Promise<void> {
  const items = await tx.returnItem.findMany({
    where: { returnId: target.id, removedAt: null },
    select: { id: true, outcome: true, ...ITEM_AMOUNT_SELECT },
  });
  const amounts = processingAmounts(items);
  for (const item of amounts.items) {
    if (item.outcome !== 'refund' && item.outcome !== 'credit') continue;
    await tx.returnItem.update({ where: { id: item.itemId }, data: { refundAmount: item.amount.toFixed() } });
  }
  await changeStatus(tx, target, 'process', { totalRefund: amounts.refund.toFixed(), totalStoreCredit: amounts.storeCredit.toFixed() });
}

/** Completes the return, recording what is refunded and what is credited. */
export async function processReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('process', target);
    await completeReturn(tx, target);
    return target.id;
  });
}

/**
 * Processes the return item by item: the rejected items are taken off the return (and
 * released), the others completed with their refunds, each paid as its decision's outcome says
 * when one is given (refund or credit, for an item that asked for either; SWITCHABLE_OUTCOMES);
 * rejecting every item rejects the return. Every item of the return must be named, once.
 */
export async function processReturnItems(
  db: Db | Tx,
  storeId: string,
  ref: ReturnRef,
  decisions: { itemId: string; reject: boolean; outcome?: ReturnOutcome | null }[],
): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    const live = target.items.filter((item) => item.removedAt === null);
    const issues: FieldIssue[] = [];
    const seen = new Set<string>();
    decisions.forEach((decision, index) => {
      if (!live.some((item) => item.id === decision.itemId)) issues.push({ path: `products.${index}._id`, message: `${decision.itemId} is not an item of ${target.label}` });
      else if (seen.has(decision.itemId)) issues.push({ path: `products.${index}._id`, message: `${decision.itemId} is listed more than once` });
      seen.add(decision.itemId);
    });
    const missing = live.filter((item) => !seen.has(item.id));
    if (missing.length > 0) issues.push({ path: 'products', message: `every item must be named; missing ${missing.map((item) => item.id).join(', ')}` });
    const choices = decisions.flatMap((decision, index) => (decision.outcome ? [{ index, itemId: decision.itemId, outcome: decision.outcome, reject: decision.reject }] : []));
    for (const choice of choices.filter((c) => c.reject)) issues.push({ path: `products.${choice.index}.outcome`, message: `item ${choice.itemId} is rejected: it gets no outcome` });
    const kept = choices.filter((choice) => !choice.reject);
    issues.push(...outcomeChoiceIssues(target.label, live, kept, (index) => `products.${kept[index].index}.outcome`));
    if (issues.length > 0) throw Invalid.of(issues);
    assertAllowed('process', target);
    const rejected = decisions.filter((decision) => decision.reject).map((decision) => decision.itemId);
    if (rejected.length === live.length) {
      await changeStatus(tx, target, 'reject');
      return target.id;
    }
    if (rejected.length > 0) await tx.returnItem.updateMany({ where: { id: { in: rejected } }, data: { removedAt: new Date() } });
    for (const choice of kept) {
      const asked = live.find((item) => item.id === choice.itemId)!.outcome;
      if (choice.outcome !== asked) await tx.returnItem.update({ where: { id: choice.itemId }, data: { outcome: choice.outcome, requestedOutcome: asked } });
    }
    await completeReturn(tx, target);
    return target.id;
  });
}

export async function flagReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('flag', target);
    await changeStatus(tx, target, 'flag');
    return target.id;
  });
}

/** The native reject (the compatibility interface's "close"): the items are released. */
export async function rejectReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('reject', target);
    await changeStatus(tx, target, 'reject');
    return target.id;
  });
}

/**
 * The native reset (the compatibility interface's "cancel"): back to open with the
 * items the return was created with and nothing refunded. Refused when the order's
 * units it would claim again are meanwhile claimed by another return.
 */
export async function resetReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('reset', target);
    // An imported return claims no order's units: nothing to check.
    if (target.orderId) await lockOrder(tx, storeId, target.orderId);
    const lines = await tx.orderLineItem.findMany({
      where: { id: { in: target.items.flatMap((item) => (item.orderLineItemId ? [item.orderLineItemId] : [])) } },
      select: { id: true, externalId: true, quantity: true },
    });
    const claimed = await claimedQuantities(tx, lines.map((line) => line.id), target.id);
    for (const line of lines) {
      const wanted = target.items.filter((item) => item.orderLineItemId === line.id).reduce((sum, item) => sum + item.quantity, 0);
      if (wanted > returnableUnits(line.quantity, claimed.get(line.id) ?? 0)) {
        throw new UnprocessableState(`${target.label} cannot be reset: line item ${line.externalId} is now claimed by another return`);
      }
    }
    await tx.returnItem.updateMany({ where: { returnId: target.id }, data: { removedAt: null, refundAmount: null } });
    // An item processing paid the other way than asked asks again as it did.
    for (const item of await tx.returnItem.findMany({ where: { returnId: target.id, requestedOutcome: { not: null } }, select: { id: true, requestedOutcome: true } })) {
      await tx.returnItem.update({ where: { id: item.id }, data: { outcome: item.requestedOutcome!, requestedOutcome: null } });
    }
    await changeStatus(tx, target, 'reset', { totalRefund: 0, totalStoreCredit: 0 });
    return target.id;
  });
}

/** A deleted return takes no further operation and no longer claims its items. */
export async function deleteReturn(db: Db | Tx, storeId: string, ref: ReturnRef): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('delete', target);
    await changeStatus(tx, target, 'delete');
    return target.id;
  });
}

/** The statuses a caller may set directly (the reference's `return-status-update.schema`). */
export const SETTABLE_STATUSES = ['complete', 'open', 'flagged', 'rejected', 'deleted'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

/**
 * Setting a status runs the operation leading there, so every door shares one state
 * machine: complete processes the return (every item completed, refunds recorded), open
 * resets it (processed or rejected items back to open, nothing refunded; refunds already
 * made are not reversed), flagged flags, rejected rejects, deleted deletes.
 */
export async function setReturnStatus(db: Db | Tx, storeId: string, ref: ReturnRef, status: SettableStatus): Promise<string> {
  switch (status) {
    case 'complete':
      return processReturn(db, storeId, ref);
    case 'open':
      return resetReturn(db, storeId, ref);
    case 'flagged':
      return flagReturn(db, storeId, ref);
    case 'rejected':
      return rejectReturn(db, storeId, ref);
    case 'deleted':
      return deleteReturn(db, storeId, ref);
    default:
      throw new Invalid(`status must be one of ${SETTABLE_STATUSES.join(', ')}`, { path: 'status' });
  }
}

/** Drops some items (refund or credit outcomes only); the last remaining item stays. */
export async function removeReturnItems(db: Db | Tx, storeId: string, ref: ReturnRef, itemIds: string[]): Promise<string> {
  const ids = [...new Set(itemIds.map((id) => id.trim()).filter((id) => id !== ''))];
  if (ids.length === 0) throw new Invalid('name at least one line item to remove', { path: 'lineItemIds' });
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    const unknown = ids.filter((id) => !target.items.some((item) => item.id === id));
    if (unknown.length > 0) {
      throw Invalid.of(unknown.map((id) => ({ path: 'lineItemIds', message: `${id} is not a line item of ${target.label}` })));
    }
    assertAllowed('remove', target);
    const chosen = target.items.filter((item) => ids.includes(item.id));
    const gone = chosen.filter((item) => item.removedAt !== null);
    if (gone.length > 0) {
      throw new UnprocessableState(`line item ${gone.map((item) => item.id).join(', ')} of ${target.label} was already removed`);
    }
    const kept = chosen.filter((item) => item.outcome !== 'refund' && item.outcome !== 'credit');
    if (kept.length > 0) {
      throw new UnprocessableState(
        `line item ${kept.map((item) => `${item.id} (${item.outcome})`).join(', ')} cannot be removed: only refund or credit items can be removed`,
      );
    }
    const remaining = target.items.filter((item) => item.removedAt === null && !ids.includes(item.id));
    if (remaining.length === 0) {
      throw new UnprocessableState(`the last remaining line item of ${target.label} cannot be removed`);
    }
    const now = new Date();
    await tx.returnItem.updateMany({ where: { id: { in: ids } }, data: { removedAt: now } });
    await tx.return.update({ where: { id: target.id }, data: { updatedAt: now } });
    await emitUpdated(tx, target, { status: target.status, operation: 'remove', removedItemIds: ids });
    return target.id;
  });
}


export async function addReturnNote(db: Db | Tx, storeId: string, ref: ReturnRef, content: string): Promise<{ returnId: string; noteId: string }> {
  if (typeof content !== 'string' || content.trim().length === 0 || content.length > MAX_NOTE_LENGTH) {
    throw new Invalid(`content must be 1 to ${MAX_NOTE_LENGTH} characters`, { path: 'content' });
  }
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    assertAllowed('note', target);
    const noteId = newId('returnNote');
    await tx.returnNote.create({ data: { id: noteId, returnId: target.id, content } });
    await tx.return.update({ where: { id: target.id }, data: { updatedAt: new Date() } });
    await emitUpdated(tx, target, { status: target.status, operation: 'note', noteId });
    return { returnId: target.id, noteId };
  });
}

export interface SetReturnLabelInput extends ReturnLabelInput {
  /** The label's shipment status as the carrier reports it (free text, e.g. in_transit). */
  labelStatus?: string | null;
}

/**
 * Gives the return a shipping label, or changes the one it has: its tracking number, carrier,
 * URLs and status are replaced by the input's. Records return.updated when anything changed,
 * and return_label.created for a return that had no tracking number, else return_label.updated
 * when the carrier, tracking number or label status changed.
 */
export async function setReturnLabel(db: Db | Tx, storeId: string, ref: ReturnRef, input: SetReturnLabelInput): Promise<string> {
  const issues = new InputIssues();
  const wanted = {
    trackingNumber: requiredText(issues, 'label.trackingNumber', input.trackingNumber),
    carrier: optionalText(issues, 'label.carrier', input.carrier ?? null) ?? null,
    trackingUrl: optionalText(issues, 'label.trackingUrl', input.trackingUrl ?? null, 2048) ?? null,
    labelUrl: optionalText(issues, 'label.postageLabelUrl', input.postageLabelUrl ?? null, 2048) ?? null,
    labelStatus: optionalText(issues, 'labelStatus', input.labelStatus ?? null) ?? null,
  };
  issues.throwIfAny();
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    // A label is bookkeeping like a note: any status but deleted takes one.
    if (!canApply('note', target.status)) throw new UnprocessableState(`${target.label} is ${target.status}: a label cannot be set in that status`);
    const before = await tx.return.findUniqueOrThrow({
      where: { id: target.id },
      select: { carrier: true, trackingNumber: true, labelStatus: true, trackingUrl: true, labelUrl: true },
    });
    const changed = (Object.keys(wanted) as (keyof typeof wanted)[]).filter((field) => before[field] !== wanted[field]);
    if (changed.length === 0) return target.id;
    await tx.return.update({ where: { id: target.id }, data: { ...wanted, updatedAt: new Date() } });
    await emitUpdated(tx, target, { status: target.status, operation: 'label', changed });
    const reported = changed.some((field) => field === 'carrier' || field === 'trackingNumber' || field === 'labelStatus');
    if (before.trackingNumber === null) await emitLabel(tx, { ...target, ...wanted }, 'return_label.created');
    else if (reported) await emitLabel(tx, { ...target, ...wanted }, 'return_label.updated');
    return target.id;
  });
}

const MAX_TAGS = 50;

/** Replaces the return's tags; each must be a tag the store defines (see returnTags.ts). */
export async function setReturnTags(db: Db | Tx, storeId: string, ref: ReturnRef, tags: string[]): Promise<string> {
  const wanted = [...new Set(tags)];
  if (wanted.length > MAX_TAGS) throw new Invalid(`tags must list at most ${MAX_TAGS} tags`, { path: 'tags' });
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    const defined = new Set((await tx.returnTag.findMany({ where: { storeId, name: { in: wanted } }, select: { name: true } })).map((t) => t.name));
    const issues = tags.flatMap((name, index) => (defined.has(name) ? [] : [{ path: `tags.${index}`, message: `return tag "${name}" is not defined; create it first` }]));
    if (issues.length > 0) throw Invalid.of(issues);
    await tx.return.update({ where: { id: target.id }, data: { tags: wanted, updatedAt: new Date() } });
    await emitUpdated(tx, target, { status: target.status, operation: 'tags', tags: wanted });
    return target.id;
  });
}

/** Adds one tag the store defines to the return's tags; a return that has it already is left as it is. */
export async function addReturnTag(db: Db | Tx, storeId: string, ref: ReturnRef, tag: string): Promise<string> {
  return inTransaction(db, async (tx) => {
    const target = await lockReturn(tx, storeId, ref);
    const { tags } = await tx.return.findUniqueOrThrow({ where: { id: target.id }, select: { tags: true } });
    if (tags.includes(tag)) return target.id;
    return setReturnTags(tx, storeId, { id: target.id }, [...tags, tag]);
  });
}

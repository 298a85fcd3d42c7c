// The mutations of a return: creation, the status machine's operations, items, notes,
// labels and tags, each one domain operation (domain/returns/operations.ts).
import type { Return as ReturnRow } from '../generated/prisma/client.ts';
import type { Plain } from '../db/reads/plain.ts';
import { createReturn } from '../domain/returns/creation.ts';
import type { ReturnRef } from '../domain/returns/locking.ts';
import { addReturnNote, setReturnTags, deleteReturn, setReturnStatus, flagReturn, processReturn, processReturnItems, rejectReturn, removeReturnItems, resetReturn, setReturnLabel } from '../domain/returns/operations.ts';
import { builder } from './builder.ts';
import { storeIdOf, type GraphQLContext } from './context.ts';
import type { MutationFieldBuilder } from './node.ts';
import { Return, ReturnItemOutcomeInput, ReturnOutcome, ReturnType, loadReturn, refOf, returnRefArgs } from './returns.ts';

const CreateReturnItemInput = builder.inputType('CreateReturnItemInput', {
  description: 'Units of one order line to return; each line at most once per return',
  fields: (t) => ({
    lineItemId: t.string({ required: true, description: "Our order line id (oli_) or the merchant's line item id" }),
    quantity: t.int({
      required: true,
      description: 'Units to return: at least 1, and at most what was ordered less what other live returns claim (else CONFLICT)',
    }),
    reason: t.string({ description: "The customer's reason for returning, up to 255 characters" }),
    reasonCode: t.string({ description: "The merchant's code for the reason, up to 255 characters" }),
    customerComment: t.string({ description: "The shopper's own words about the item, up to 255 characters" }),
    outcome: t.field({ type: ReturnOutcome, description: 'What the customer gets for these units; default REFUND' }),
  }),
});

const ReturnAddressInput = builder.inputType('ReturnAddressInput', {
  description: 'A postal address the customer ships the return from; the required parts must not be blank (else BAD_USER_INPUT)',
  fields: (t) => ({
    line1: t.string({ required: true, description: 'First street line' }),
    line2: t.string({ description: 'Second street line (apartment, suite ...)' }),
    city: t.string({ required: true, description: 'City or town' }),
    state: t.string({ required: true, description: 'State or province, preferably its code' }),
    postalCode: t.string({ required: true, description: 'Postal or ZIP code' }),
    country: t.string({ required: true, description: 'Country, preferably its ISO 3166-1 alpha-2 code; stored as given, not checked' }),
  }),
});

const ReturnLabelInput = builder.inputType('ReturnLabelInput', {
  description: 'A shipping label already bought for the return; its parts are stored on the return as given',
  fields: (t) => ({
    trackingNumber: t.string({ required: true, description: 'Tracking number of the label; must not be blank (becomes Return.trackingNumber)' }),
    carrier: t.string({ description: 'Carrier of the label, e.g. USPS (becomes Return.carrier)' }),
    trackingUrl: t.string({ description: "The carrier's tracking page (becomes Return.trackingUrl)" }),
    postageLabelUrl: t.string({ description: 'URL of the printable postage label (becomes Return.labelUrl)' }),
  }),
});

/** The input of returnCreate, under its name and under the deprecated createReturn's one. */
function returnCreateInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({
      orderId: t.id({ description: 'Our order id (ord_); give exactly one of orderId and externalOrderId' }),
      externalOrderId: t.string({ description: "The merchant's order id (its orderId at creation); give exactly one of orderId and externalOrderId" }),
      items: t.field({ type: [CreateReturnItemInput], required: true, description: '1 to 250 lines of the order to return, each line at most once' }),
      type: t.field({ type: ReturnType, description: 'RETURN, CLAIM or WARRANTY; default RETURN' }),
      originAddress: t.field({ type: ReturnAddressInput, description: 'Where the customer ships the return from; line1, city, state, postalCode and country must not be blank' }),
      label: t.field({ type: ReturnLabelInput, description: 'A label already bought for the return: its trackingNumber is required, carrier and URLs optional' }),
      notes: t.string({ description: "The return's first note, 1 to 255 characters" }),
    }),
  });
}

const ReturnCreateInput = returnCreateInput('ReturnCreateInput', 'A return of some units of an order\'s lines (returnCreate)');
const CreateReturnInput = returnCreateInput(
  'CreateReturnInput',
  'Input of the deprecated createReturn; use returnCreate with ReturnCreateInput (the same fields)',
);

const ProcessReturnItemInput = builder.inputType('ProcessReturnItemInput', {
  description: 'The decision on one item of returnItemsProcess; every item still on the return must be named exactly once (else BAD_USER_INPUT)',
  fields: (t) => ({
    itemId: t.id({ required: true, description: 'ReturnItem id (rli_) of an item still on the return' }),
    reject: t.boolean({ description: 'True takes the item off the return and releases its units; false (the default) completes it with its refund' }),
    outcome: t.field({
      type: ReturnOutcome,
      description:
        'How a completed item is paid, when not as its return asked: REFUND or CREDIT, for an item that asked for either (an EXCHANGE or KEEP ' +
        'item stays as asked); the item then records it, and returnReset gives back the one asked. Not with reject: true (BAD_USER_INPUT)',
    }),
  }),
});

ReturnItemOutcomeInput.implement({
  description: 'An outcome processingPreview is to reckon an item with, as returnItemsProcess would record it',
  fields: (t) => ({
    itemId: t.id({ required: true, description: 'ReturnItem id (rli_) of an item still on the return' }),
    outcome: t.field({ type: ReturnOutcome, required: true, description: 'REFUND or CREDIT, for an item that asked for either' }),
  }),
});

export const SettableReturnStatus = builder.enumType('SettableReturnStatus', {
  description: 'Statuses returnStatusSet takes; each runs the operation leading there, so the state machine of ReturnStatus applies',
  values: {
    COMPLETE: { value: 'complete', description: 'Runs returnProcess: completes the return, recording refunds and store credit' },
    OPEN: { value: 'open', description: 'Runs returnReset: back to OPEN with the items it was created with, nothing refunded' },
    FLAGGED: { value: 'flagged', description: 'Runs returnFlag: flags the return for review' },
    REJECTED: { value: 'rejected', description: 'Runs returnReject: rejects the return and releases its units' },
    DELETED: { value: 'deleted', description: 'Runs returnDelete: deletes the return; no status operation applies to it afterwards' },
  } as const,
});

/** What returnCreate answers, under its name and under the deprecated createReturn's one. */
function returnCreatePayload(name: string, description: string) {
  return builder.objectRef<{ return: Plain<ReturnRow>; replayed: boolean }>(name).implement({
    description,
    fields: (t) => ({
      return: t.field({
        type: Return,
        nullable: false,
        description: 'The return created, or on a replay the one the idempotency key created first',
        resolve: (payload) => payload.return,
      }),
      replayed: t.exposeBoolean('replayed', {
        nullable: false,
        description: 'True when the idempotency key replayed an earlier creation: nothing was written',
      }),
    }),
  });
}

const ReturnCreatePayload = returnCreatePayload('ReturnCreatePayload', 'What returnCreate answers: the return, and whether it was a replay');
const CreateReturnPayload = returnCreatePayload(
  'CreateReturnPayload',
  'Payload of the deprecated createReturn; use returnCreate, which answers the same fields as ReturnCreatePayload',
);

type Transition = (db: GraphQLContext['prisma'], storeId: string, ref: ReturnRef) => Promise<string>;

/** How a mutation on one return names it, and the errors that naming gives. */
const RETURN_REF =
  'The return is named by id, number, orderName or orderId (an order names its newest return); criteria given together must name the same return.';
const REF_INVALID = 'BAD_USER_INPUT when no criterion is given, number is not positive or the criteria name different returns';
const REF_MISSING = 'NOT_FOUND when the store has no such return';
const REF_ERRORS = `${REF_INVALID}; ${REF_MISSING}`;
const IN_PROGRESS = 'OPEN, IN_TRANSIT, DELIVERED, NEEDS_REVIEW, IN_REVIEW or FLAGGED';
const NOT_ALLOWED = 'UNPROCESSABLE when its status does not allow the operation';

/** A mutation of one return's status (`transition`), its new name and, with `deprecationReason`, its old one. */
function transitionField(t: MutationFieldBuilder, transition: Transition, description: string, deprecationReason?: string) {
  return t.prismaField({
    type: 'Return',
    nullable: false,
    description,
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: returnRefArgs(t),
    resolve: async (query, _root, args, ctx) => {
      const id = await transition(ctx.prisma, storeIdOf(ctx), refOf(args));
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  });
}

/** returnCreate, and createReturn: its deprecated old name (`deprecationReason`). */
function returnCreateField(
  t: MutationFieldBuilder,
  types: { input: typeof ReturnCreateInput; payload: typeof ReturnCreatePayload },
  deprecationReason?: string,
) {
  return t.field({
    type: types.payload,
    nullable: false,
    description:
      "Creates a return (status OPEN) of some units of an order's lines, in one transaction with its first note, the store's return " +
      'processing fee (when billing settings set one) and the return.created event; it goes to the location fulfilling the lines. With ' +
      'an idempotencyKey, a repeat of the same request answers the return it made (replayed: true). Needs returns_write. Errors: ' +
      'BAD_USER_INPUT for invalid input: not exactly one of orderId and externalOrderId, no items or more than 250, a line the order lacks ' +
      'or names twice, a quantity below 1, a text over 255 characters, a blank required address part (every issue in extensions.issues; ' +
      'nothing written); NOT_FOUND for an unknown order; CONFLICT when a quantity exceeds what was ordered less what live returns claim, ' +
      'or when the idempotency key was used with a different request.',
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: {
      input: t.arg({ type: types.input, required: true, description: 'The order, the lines and units to return, and the return\'s details' }),
      idempotencyKey: t.arg.string({
        description:
          'Optional, 1 to 255 characters, per store (REST: the Idempotency-Key header): a repeat with the same key and the same request ' +
          'answers the return already made; the same key with a different request is CONFLICT',
      }),
    },
    resolve: async (_root, args, ctx, info) => {
      const { input } = args;
      const created = await createReturn(
        ctx.prisma,
        storeIdOf(ctx),
        {
          orderId: input.orderId == null ? null : String(input.orderId),
          externalOrderId: input.externalOrderId,
          originAddress: input.originAddress,
          label: input.label,
          notes: input.notes,
          type: input.type,
          items: input.items,
        },
        args.idempotencyKey,
      );
      return { return: await loadReturn(ctx, info, created.id, ['return']), replayed: created.replayed };
    },
  });
}

const RETURN_PROCESS =
  `Completes the return (status COMPLETE): every item still on it with a REFUND or CREDIT outcome gets its refund amount, and the ` +
  `return's total refund and store credit are recorded; records return.updated. Allowed from ${IN_PROGRESS}; COMPLETE is final but for ` +
  `returnReset. ${RETURN_REF} Needs returns_write. Errors: ${REF_ERRORS}; ${NOT_ALLOWED}.`;
const RETURN_FLAG =
  `Flags the return for review (status FLAGGED) and records return.updated. Allowed from OPEN, IN_TRANSIT, DELIVERED, NEEDS_REVIEW or ` +
  `IN_REVIEW. ${RETURN_REF} Needs returns_write. Errors: ${REF_ERRORS}; ${NOT_ALLOWED}.`;
const RETURN_REJECT =
  `Rejects the return (status REJECTED; the compatibility interface's close): its items no longer claim the order's units; records ` +
  `return.updated. Allowed from ${IN_PROGRESS}; REJECTED is final but for returnReset. ${RETURN_REF} Needs returns_write. Errors: ` +
  `${REF_ERRORS}; ${NOT_ALLOWED}.`;
const RETURN_RESET =
  `Resets the return (the compatibility interface's cancel): back to OPEN with the items it was created with, removed ones restored, ` +
  `nothing refunded (refunds already made are not reversed); records return.updated. Allowed from any status but DELETED. ${RETURN_REF} ` +
  `Needs returns_write. Errors: ${REF_ERRORS}; ${NOT_ALLOWED}, or when units it would claim again are meanwhile claimed by another return.`;
const RETURN_DELETE =
  `Deletes the return (status DELETED): no operation applies to it afterwards and its items no longer claim the order's units; records ` +
  `return.updated. Allowed from any status but DELETED. ${RETURN_REF} Needs returns_write. Errors: ${REF_ERRORS}; ${NOT_ALLOWED}.`;

/** returnItemsProcess, and processReturnItems: its deprecated old name (`deprecationReason`). */
function returnItemsProcessField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'Return',
    nullable: false,
    description:
      'Processes the return item by item: rejected items are taken off the return (their units released), the others complete with ' +
      `their refunds as returnProcess completes them, each paid as its outcome says when given (refund or credit); rejecting every item rejects the return. Records return.updated. Allowed from ` +
      `${IN_PROGRESS}. ${RETURN_REF} Needs returns_write. Errors: ${REF_INVALID}, or when an item is not on the return, is named twice ` +
      `or is missing; ${REF_MISSING}; ${NOT_ALLOWED}.`,
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: {
      ...returnRefArgs(t),
      items: t.arg({
        type: [ProcessReturnItemInput],
        required: true,
        description: 'One decision per item still on the return, each item exactly once',
      }),
    },
    resolve: async (query, _root, args, ctx) => {
      const decisions = args.items.map((item) => ({ itemId: String(item.itemId), reject: item.reject ?? false, outcome: item.outcome }));
      const id = await processReturnItems(ctx.prisma, storeIdOf(ctx), refOf(args), decisions);
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  });
}

/** returnStatusSet, and setReturnStatus: its deprecated old name (`deprecationReason`). */
function returnStatusSetField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'Return',
    nullable: false,
    description:
      'Sets a status by running the operation leading to it, with its rules and its return.updated event: COMPLETE runs returnProcess, ' +
      `OPEN returnReset, FLAGGED returnFlag, REJECTED returnReject, DELETED returnDelete. ${RETURN_REF} Needs returns_write. Errors: ` +
      `${REF_ERRORS}; ${NOT_ALLOWED}.`,
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: {
      ...returnRefArgs(t),
      status: t.arg({ type: SettableReturnStatus, required: true, description: 'The status to reach' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = await setReturnStatus(ctx.prisma, storeIdOf(ctx), refOf(args), args.status);
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  });
}

/** returnItemsRemove, and removeReturnItems: its deprecated old name (`deprecationReason`). */
function returnItemsRemoveField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'Return',
    nullable: false,
    description:
      'Takes items off the return (their units released) and records return.updated. Only items with a REFUND or CREDIT outcome can be ' +
      `removed, and the last item still on the return stays. Allowed from ${IN_PROGRESS}. ${RETURN_REF} Needs returns_write. Errors: ` +
      `${REF_INVALID}, or for an empty list or an id that is not an item of the return; ${REF_MISSING}; ${NOT_ALLOWED}, or for an ` +
      'item already removed, one with another outcome, or the last one.',
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: {
      ...returnRefArgs(t),
      lineItemIds: t.arg.idList({ required: true, description: 'ReturnItem ids (rli_) of the items to remove; at least one' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = await removeReturnItems(ctx.prisma, storeIdOf(ctx), refOf(args), args.lineItemIds.map(String));
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  });
}

/** returnNoteAdd, and addReturnNote: its deprecated old name (`deprecationReason`). */
function returnNoteAddField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'ReturnNote',
    nullable: false,
    description:
      'Adds a note to the return and records return.updated; answers the note. Allowed in any status but DELETED. ' +
      `${RETURN_REF} Needs returns_write. Errors: ${REF_INVALID}, or for content that is blank or over 255 characters; ${REF_MISSING}; ` +
      `${NOT_ALLOWED}.`,
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: { ...returnRefArgs(t), content: t.arg.string({ required: true, description: 'The note, 1 to 255 characters, not blank' }) },
    resolve: async (query, _root, args, ctx) => {
      const { noteId } = await addReturnNote(ctx.prisma, storeIdOf(ctx), refOf(args), args.content);
      return ctx.reads.returnNote.findUniqueOrThrow({ ...query, where: { id: noteId } });
    },
  });
}

/** returnTagsSet, and setReturnTags: its deprecated old name (`deprecationReason`). */
function returnTagsSetField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'Return',
    nullable: false,
    description:
      'Replaces the tags of the return, in any status, and records return.updated; each tag must be a return tag the store defines ' +
      `(returnTagUpsert). ${RETURN_REF} Needs returns_write. Errors: ${REF_INVALID}, or for more than 50 tags or a tag the store does ` +
      `not define (nothing written); ${REF_MISSING}.`,
    deprecationReason,
    authScopes: { scope: 'returns_write' },
    args: {
      ...returnRefArgs(t),
      tags: t.arg.stringList({ required: true, description: "The return's tags from now on: at most 50 names (a repeated name counts once); [] removes all" }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = await setReturnTags(ctx.prisma, storeIdOf(ctx), refOf(args), args.tags);
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  });
}

builder.mutationField('returnLabelSet', (t) =>
  t.prismaField({
    type: 'Return',
    nullable: false,
    description:
      "Gives the return a shipping label, or replaces the one it has (tracking number, carrier, URLs and status all take the input's values). " +
      'Records return.updated when anything changed, and return_label.created for a return without a tracking number before, else ' +
      `return_label.updated when the carrier, tracking number or label status changed. Allowed in any status but DELETED. ${RETURN_REF} ` +
      `Needs returns_write. Errors: ${REF_INVALID}, or for a blank tracking number or a text over its length; ${REF_MISSING}; ${NOT_ALLOWED}.`,
    authScopes: { scope: 'returns_write' },
    args: {
      ...returnRefArgs(t),
      label: t.arg({ type: ReturnLabelInput, required: true, description: 'The label: trackingNumber required (up to 255 characters), carrier and URLs optional' }),
      labelStatus: t.arg.string({ description: "The label's shipment status as the carrier reports it (e.g. pre_transit, in_transit, delivered); null clears it" }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = await setReturnLabel(ctx.prisma, storeIdOf(ctx), refOf(args), { ...args.label, labelStatus: args.labelStatus });
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

builder.mutationFields((t) => ({
  returnCreate: returnCreateField(t, { input: ReturnCreateInput, payload: ReturnCreatePayload }),
  createReturn: returnCreateField(t, { input: CreateReturnInput, payload: CreateReturnPayload }, 'Use returnCreate'),
  returnProcess: transitionField(t, processReturn, RETURN_PROCESS),
  processReturn: transitionField(t, processReturn, RETURN_PROCESS, 'Use returnProcess'),
  returnFlag: transitionField(t, flagReturn, RETURN_FLAG),
  flagReturn: transitionField(t, flagReturn, RETURN_FLAG, 'Use returnFlag'),
  returnReject: transitionField(t, rejectReturn, RETURN_REJECT),
  rejectReturn: transitionField(t, rejectReturn, RETURN_REJECT, 'Use returnReject'),
  returnReset: transitionField(t, resetReturn, RETURN_RESET),
  resetReturn: transitionField(t, resetReturn, RETURN_RESET, 'Use returnReset'),
  returnItemsProcess: returnItemsProcessField(t),
  processReturnItems: returnItemsProcessField(t, 'Use returnItemsProcess'),
  returnDelete: transitionField(t, deleteReturn, RETURN_DELETE),
  deleteReturn: transitionField(t, deleteReturn, RETURN_DELETE, 'Use returnDelete'),
  returnStatusSet: returnStatusSetField(t),
  setReturnStatus: returnStatusSetField(t, 'Use returnStatusSet'),
  returnItemsRemove: returnItemsRemoveField(t),
  removeReturnItems: returnItemsRemoveField(t, 'Use returnItemsRemove'),
  returnNoteAdd: returnNoteAddField(t),
  addReturnNote: returnNoteAddField(t, 'Use returnNoteAdd'),
  returnTagsSet: returnTagsSetField(t),
  setReturnTags: returnTagsSetField(t, 'Use returnTagsSet'),
}));

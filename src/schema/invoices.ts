// What the service charges the store (domain/invoices.ts): invoices per calendar month
// and currency with their items, read with invoices_read, and the store's billing terms.
import { billingSetting, invoiceStatus, monthOf, sumAmounts, updateBillingSettings } from '../domain/invoices.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { connectionNodeQuery } from './node.ts';
import { money, Money } from './scalars.ts';
import { payloadType, withUserErrors } from './userErrors.ts';
import { toPlain } from '../db/reads/plain.ts';

export const InvoiceStatus = builder.enumType('InvoiceStatus', {
  description: 'Whether an invoice can still change.',
  values: {
    PENDING: { description: 'The current calendar month (UTC): items are still added' },
    ISSUED: { description: 'A past month: final, it no longer changes' },
  } as const,
});

export const InvoiceItemKind = builder.enumType('InvoiceItemKind', {
  description: 'What an invoice item charges for.',
  values: {
    COVERAGE_PREMIUM: { description: 'Coverage sold on an order' },
    RETURN_PROCESSING_FEE: { description: 'The per-return processing fee of the billing settings' },
  } as const,
});

const ITEM_ORDER = [{ occurredAt: 'asc' as const }, { id: 'asc' as const }];

const InvoiceItem = builder.prismaObject('InvoiceItem', {
  description: 'One charge on an invoice.',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Opaque id of the item (it starts with `ini_`)' }),
    kind: t.expose('kind', { type: InvoiceItemKind, nullable: false, description: 'What is charged for' }),
    description: t.exposeString('description', { nullable: false, description: 'Line text naming the charge, e.g. "Processing fee of return 1042"' }),
    subjectId: t.exposeString('subjectId', { nullable: false, description: 'Id of the order or return charged for' }),
    amount: t.field({
      type: Money,
      nullable: false,
      description: "The amount charged, in the invoice's currency",
      select: { invoice: { select: { currency: true } } },
      resolve: (i) => money(i.amount, i.invoice.currency)!,
    }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: false, description: "When the sale or return causing the charge happened; it decides the invoice's month" }),
  }),
});

builder.prismaObject('Invoice', {
  description: 'What the service charges the store for one calendar month (UTC) in one currency.',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Opaque id of the invoice (it starts with `inv_`)' }),
    month: t.string({ nullable: false, description: 'YYYY-MM (UTC)', resolve: (i) => i.month.slice(0, 7) }),
    status: t.field({ type: InvoiceStatus, nullable: false, description: 'PENDING during its month, ISSUED after', resolve: (i) => (invoiceStatus(i) === 'pending' ? 'PENDING' : 'ISSUED') }),
    charge: t.field({
      type: Money,
      nullable: false,
      description: 'The exact sum of the items',
      select: { items: { select: { amount: true } } },
      resolve: (i) => money(sumAmounts(i.items), i.currency)!,
    }),
    items: t.relation('items', {
      nullable: false,
      description: 'Every item, oldest first (by occurredAt, ties by id); `invoiceItems` reads them a page at a time',
      query: { orderBy: ITEM_ORDER },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: "When the month's first charge made the invoice" }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false, description: 'When the last item was added' }),
  }),
});

const BillingSettings = builder.prismaObject('BillingSetting', {
  name: 'BillingSettings',
  description: "The store's billing terms.",
  fields: (t) => ({
    returnProcessingFee: t.field({
      type: Money,
      nullable: false,
      description: "Charged per return created, in the store's currency",
      select: { store: { select: { currency: true } } },
      resolve: (s) => money(s.returnProcessingFee, s.store.currency)!,
    }),
  }),
});

builder.queryFields((t) => ({
  invoices: t.prismaField({
    type: ['Invoice'],
    nullable: false,
    description: 'Every invoice of the store, newest month first (one per month and currency charged). Needs invoices_read.',
    authScopes: { scope: 'invoices_read' },
    resolve: (query, _root, _args, ctx) =>
      ctx.reads.invoice.findMany({ ...query, where: { storeId: storeIdOf(ctx) }, orderBy: [{ month: 'desc' }, { currency: 'asc' }] }),
  }),
  invoice: t.prismaField({
    type: 'Invoice',
    nullable: true,
    description: "The store's invoice with this id; null when it has none. Needs invoices_read.",
    authScopes: { scope: 'invoices_read' },
    args: { id: t.arg.id({ required: true, description: 'Id of the invoice (`inv_`)' }) },
    resolve: (query, _root, args, ctx) => ctx.reads.invoice.findFirst({ ...query, where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  invoiceItems: t.connection(
    {
      type: InvoiceItem,
      nullable: false,
      description:
        "An invoice's items a page at a time, in the order of Invoice.items; empty when the store has no invoice with this id. Needs invoices_read.",
      authScopes: { scope: 'invoices_read' },
      args: { invoiceId: t.arg.id({ required: true, description: 'Id of the invoice (`inv_`)' }) },
      resolve: (_root, args, ctx, info) =>
        keysetConnection({
          cursors: ctx.services.cursors,
          args,
          // ITEM_ORDER: occurredAt, then id.
          sort: { field: 'occurredAt', kind: 'date', direction: 'asc' },
          scope: 'invoiceItems',
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.invoiceItem.findMany({
              ...connectionNodeQuery(ctx, info, 'InvoiceItem', cursorColumns),
              where: { AND: [{ invoiceId: String(args.invoiceId), invoice: { storeId: storeIdOf(ctx) } }, where] },
              orderBy,
              take,
            }),
        }),
    },
    { name: 'InvoiceItemConnection' },
    { name: 'InvoiceItemEdge' },
  ),
  pendingInvoices: t.prismaField({
    type: ['Invoice'],
    nullable: false,
    description: 'The invoices of the current month (one per currency charged; none before the first charge). Needs invoices_read.',
    authScopes: { scope: 'invoices_read' },
    resolve: (query, _root, _args, ctx) =>
      ctx.reads.invoice.findMany({ ...query, where: { storeId: storeIdOf(ctx), month: monthOf(new Date()) }, orderBy: [{ currency: 'asc' }] }),
  }),
  billingSettings: t.prismaField({
    type: BillingSettings,
    nullable: false,
    description: "The store's billing terms (a processing fee of 0 until set). Needs invoices_read.",
    authScopes: { scope: 'invoices_read' },
    resolve: async (query, _root, _args, ctx) => {
      const storeId = storeIdOf(ctx);
      const stored = await ctx.reads.billingSetting.findUnique({ ...query, where: { storeId } });
      if (stored) return stored;
      const store = await ctx.reads.store.findUniqueOrThrow({ where: { id: storeId }, select: { currency: true } });
      return { ...toPlain(await billingSetting(ctx.prisma, storeId)), store };
    },
  }),
}));

const BillingSettingsInput = builder.inputType('BillingSettingsInput', {
  description: 'New billing terms.',
  fields: (t) => ({
    returnProcessingFee: t.field({
      type: 'Decimal',
      required: true,
      description: "Fee per return created, in the store's currency: >= 0 with at most 4 decimal places; 0 charges nothing",
    }),
  }),
});

const BillingSettingsPayload = payloadType('BillingSettingsPayload', 'billingSettings', BillingSettings, {
  type: 'What billingSettingsUpdate answers: the billing terms as saved, or userErrors.',
  field: 'The billing terms as saved; null when the change was refused',
});

builder.mutationField('billingSettingsUpdate', (t) =>
  t.field({
    type: BillingSettingsPayload,
    description:
      'Changes the per-return processing fee; returns created before keep the fee they were charged. ' +
      'Needs returns_write; an invalid fee comes back in userErrors (INVALID) and nothing is written.',
    authScopes: { scope: 'returns_write' },
    args: { input: t.arg({ type: BillingSettingsInput, required: true, description: 'The new terms' }) },
    resolve: (_root, { input }, ctx) =>
      withUserErrors({ ctx, input: 'input' }, async () => {
        const storeId = storeIdOf(ctx);
        const setting = await updateBillingSettings(ctx.prisma, storeId, { returnProcessingFee: String(input.returnProcessingFee) });
        const store = await ctx.reads.store.findUniqueOrThrow({ where: { id: storeId }, select: { currency: true } });
        return { ...setting, store };
      }),
  }),
);

// The returns overview (domain/overview.ts): one query of a period's figures, the dashboard's
// first page and the API's alike. Guarded by returns_read; the return rate also reads the
// orders placed (orders_read) and the processing fees are the store's invoice items
// (invoices_read): a caller without one of those gets null there (FORBIDDEN on that path) and
// the rest of the figures.
import { returnsOverview, MAX_OVERVIEW_DAYS, type ReturnsOverview as Overview } from '../domain/overview.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { ReturnStatus } from './returns.ts';
import { money, Money } from './scalars.ts';

type Amounts = Overview['amounts'][number];

const OverviewAge = builder.enumType('OverviewAge', {
  description: 'How long a return awaiting action has been open, in whole days since it was created.',
  values: {
    DAYS_0_2: { description: '0 to 2 days' },
    DAYS_3_7: { description: '3 to 7 days' },
    DAYS_8_PLUS: { description: '8 days or more' },
  } as const,
});

const OverviewStatusCount = builder.objectRef<Overview['needingAction']['byStatus'][number]>('OverviewStatusCount').implement({
  description: 'Returns awaiting action in one status.',
  fields: (t) => ({
    status: t.field({ type: ReturnStatus, nullable: false, description: 'A status a return can still be processed from', resolve: (s) => s.status }),
    count: t.exposeInt('count', { nullable: false, description: 'Returns in it now' }),
  }),
});

const OverviewAgeCount = builder.objectRef<Overview['needingAction']['byAge'][number]>('OverviewAgeCount').implement({
  description: 'Returns awaiting action of one age.',
  fields: (t) => ({
    age: t.field({ type: OverviewAge, nullable: false, description: 'The age bucket', resolve: (a) => a.bucket }),
    minDays: t.exposeInt('minDays', { nullable: false, description: 'Fewest whole days since opening in the bucket' }),
    maxDays: t.exposeInt('maxDays', { nullable: true, description: 'Most whole days since opening in the bucket; null for the last, open-ended one' }),
    count: t.exposeInt('count', { nullable: false, description: 'Returns of that age awaiting action now' }),
  }),
});

const OverviewNeedingAction = builder.objectRef<Overview['needingAction']>('OverviewNeedingAction').implement({
  description: 'Returns awaiting action now (in a status other than complete, rejected or deleted), whatever the period.',
  fields: (t) => ({
    total: t.exposeInt('total', { nullable: false, description: 'All of them' }),
    byStatus: t.field({ type: [OverviewStatusCount], nullable: false, description: 'Per status awaiting action, in the status order, zeros included; a status no operation leads to (in_transit, delivered, needs_review, in_review) only while a return is in it', resolve: (n) => n.byStatus }),
    byAge: t.field({ type: [OverviewAgeCount], nullable: false, description: 'Per age bucket, youngest first, zeros included', resolve: (n) => n.byAge }),
  }),
});

const OverviewDay = builder.objectRef<Overview['days'][number]>('OverviewDay').implement({
  description: 'Returns opened and completed on one day (UTC).',
  fields: (t) => ({
    day: t.field({ type: 'Date', nullable: false, description: 'The day (UTC)', resolve: (d) => d.day }),
    opened: t.exposeInt('opened', { nullable: false, description: 'Returns created that day, deleted ones left out' }),
    completed: t.exposeInt('completed', { nullable: false, description: 'Returns complete now whose last completion (closedAt) fell that day' }),
  }),
});

const OverviewRefundDay = builder.objectRef<{ day: string; currency: string; refunded: string; storeCredit: string }>('OverviewRefundDay').implement({
  description: 'What the returns completed on one day (UTC) refunded and credited.',
  fields: (t) => ({
    day: t.field({ type: 'Date', nullable: false, description: 'The day (UTC)', resolve: (d) => d.day }),
    refunded: t.field({ type: Money, nullable: false, description: 'Refunded (totalRefund)', resolve: (d) => money(d.refunded, d.currency)! }),
    storeCredit: t.field({ type: Money, nullable: false, description: 'Given as store credit (totalStoreCredit)', resolve: (d) => money(d.storeCredit, d.currency)! }),
  }),
});

const OverviewRefunds = builder.objectRef<Amounts>('OverviewRefunds').implement({
  description: "The money of the period's completed returns in one currency.",
  fields: (t) => ({
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 code of the returns' }),
    refunded: t.field({ type: Money, nullable: false, description: 'Refunded in the period', resolve: (a) => money(a.refunded, a.currency)! }),
    storeCredit: t.field({ type: Money, nullable: false, description: 'Given as store credit in the period', resolve: (a) => money(a.storeCredit, a.currency)! }),
    days: t.field({
      type: [OverviewRefundDay],
      nullable: false,
      description: 'The days with a completed return or a fee, oldest first (a day without either is absent: zero)',
      resolve: (a) => a.days.map((d) => ({ ...d, currency: a.currency })),
    }),
  }),
});

const OverviewFeeDay = builder.objectRef<{ day: string; currency: string; amount: string }>('OverviewFeeDay').implement({
  description: 'Return processing fees charged on one day (UTC).',
  fields: (t) => ({
    day: t.field({ type: 'Date', nullable: false, description: 'The day (UTC)', resolve: (d) => d.day }),
    amount: t.field({ type: Money, nullable: false, description: 'The fees charged', resolve: (d) => money(d.amount, d.currency)! }),
  }),
});

const OverviewFees = builder.objectRef<Amounts>('OverviewFees').implement({
  description: 'Return processing fees charged in the period in one currency (the RETURN_PROCESSING_FEE invoice items).',
  fields: (t) => ({
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 code of the invoice' }),
    total: t.field({ type: Money, nullable: false, description: 'Charged in the period', resolve: (a) => money(a.fees, a.currency)! }),
    days: t.field({
      type: [OverviewFeeDay],
      nullable: false,
      description: 'The days with a completed return or a fee, oldest first (a day without either is absent: zero)',
      resolve: (a) => a.days.map((d) => ({ day: d.day, currency: a.currency, amount: d.fees })),
    }),
  }),
});

const OverviewSkuRate = builder.objectRef<Overview['returnRate']['top'][number]>('OverviewSkuRate').implement({
  description: "One SKU's units returned for units sold in the period.",
  fields: (t) => ({
    sku: t.exposeString('sku', { nullable: false, description: 'The SKU of the order lines and of the returned items' }),
    title: t.exposeString('title', { nullable: true, description: 'A title of its order lines' }),
    unitsOrdered: t.exposeInt('unitsOrdered', { nullable: false, description: 'Units on the lines of orders placed in the period' }),
    unitsReturned: t.exposeInt('unitsReturned', { nullable: false, description: 'Units on the items of returns opened in the period, rejected and deleted returns and removed items left out' }),
    rate: t.exposeFloat('rate', { nullable: false, description: 'unitsReturned / unitsOrdered (it may pass 1 when returns of earlier orders come in)' }),
  }),
});

const OverviewReturnRate = builder.objectRef<Overview['returnRate']>('OverviewReturnRate').implement({
  description: 'Units returned for units ordered in the period.',
  fields: (t) => ({
    unitsOrdered: t.exposeInt('unitsOrdered', { nullable: false, description: 'Units on the lines of orders placed in the period' }),
    unitsReturned: t.exposeInt('unitsReturned', {
      nullable: false,
      description: 'Units on the items of returns opened in the period, rejected and deleted returns and removed items left out',
    }),
    rate: t.exposeFloat('rate', { nullable: true, description: 'unitsReturned / unitsOrdered; null when nothing was ordered' }),
    top: t.field({
      type: [OverviewSkuRate],
      nullable: false,
      description: 'The ten SKUs sold and returned in the period with the highest rate (more units returned first on a tie, then by SKU)',
      resolve: (r) => r.top,
    }),
  }),
});

const OverviewReason = builder.objectRef<Overview['reasons'][number]>('OverviewReason').implement({
  description: 'One reason given for returned items.',
  fields: (t) => ({
    reason: t.exposeString('reason', { nullable: true, description: "The item's reason as given; null for items without one" }),
    units: t.exposeInt('units', { nullable: false, description: 'Units returned for it' }),
    returns: t.exposeInt('returns', { nullable: false, description: 'Returns with an item giving it' }),
  }),
});

const OverviewCompletion = builder.objectRef<Overview['completion']>('OverviewCompletion').implement({
  description: 'How long the returns completed in the period took.',
  fields: (t) => ({
    completed: t.exposeInt('completed', { nullable: false, description: 'Returns completed in the period (complete now, last completed in it)' }),
    medianSeconds: t.exposeFloat('medianSeconds', { nullable: true, description: 'Median seconds from creation to last completion; null when none completed' }),
  }),
});

const ReturnsOverview = builder.objectRef<Overview>('ReturnsOverview').implement({
  description: "A period's returns figures, aggregated by the database.",
  fields: (t) => ({
    from: t.field({ type: 'DateTime', nullable: false, description: 'Start of the period (inclusive)', resolve: (o) => o.from }),
    to: t.field({ type: 'DateTime', nullable: false, description: 'End of the period (exclusive)', resolve: (o) => o.to }),
    asOf: t.field({ type: 'DateTime', nullable: false, description: 'The time needingAction was counted at (now)', resolve: (o) => o.now }),
    needingAction: t.field({ type: OverviewNeedingAction, nullable: false, description: 'Returns awaiting action now, by status and age', resolve: (o) => o.needingAction }),
    days: t.field({ type: [OverviewDay], nullable: false, description: 'Every UTC day the period touches, oldest first', resolve: (o) => o.days }),
    refunds: t.field({ type: [OverviewRefunds], nullable: false, description: 'Refunds and store credit per currency, with their days', resolve: (o) => o.amounts }),
    fees: t.field({
      type: [OverviewFees],
      nullable: true,
      description: 'Return processing fees per currency, with their days. Needs invoices_read too.',
      authScopes: { scope: 'invoices_read' },
      resolve: (o) => o.amounts,
    }),
    returnRate: t.field({
      type: OverviewReturnRate,
      nullable: true,
      description: 'Units returned for units ordered, overall and the ten highest SKUs. Needs orders_read too (it reads the orders placed).',
      authScopes: { scope: 'orders_read' },
      resolve: (o) => o.returnRate,
    }),
    reasons: t.field({ type: [OverviewReason], nullable: false, description: 'Reasons of the items of returns opened in the period (deleted ones left out), most units first', resolve: (o) => o.reasons }),
    completion: t.field({ type: OverviewCompletion, nullable: false, description: 'Returns completed in the period and their median time', resolve: (o) => o.completion }),
  }),
});

builder.queryFields((t) => ({
  returnsOverview: t.field({
    type: ReturnsOverview,
    nullable: false,
    description:
      `The returns figures of the period [from, to) in UTC days: awaiting action now, opened and completed per day, refunds, store credit and fees, ` +
      `the return rate, reasons and the median time to complete. At most ${MAX_OVERVIEW_DAYS} days; to not after from gives BAD_USER_INPUT. Needs returns_read.`,
    authScopes: { scope: 'returns_read' },
    args: {
      from: t.arg({ type: 'DateTime', required: true, description: 'Start of the period (inclusive)' }),
      to: t.arg({ type: 'DateTime', required: true, description: 'End of the period (exclusive)' }),
    },
    resolve: (_root, args, ctx) => returnsOverview(ctx.prisma, storeIdOf(ctx), { from: args.from, to: args.to }),
  }),
}));

// Customer subscriptions: a customer's consent per channel (EMAIL, SMS) and kind
// (MARKETING, TRANSACTIONAL), read on Customer.subscriptions and set through
// `updateCustomerSubscriptions`. Every rule lives in domain/customerSubscriptions.ts.
import { SUBSCRIPTION_STATUSES, updateCustomerSubscriptions, type UpdatedSubscriptions } from '../domain/customerSubscriptions.ts';
import type { Customer as CustomerRow } from '../generated/prisma/client.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { Customer } from './customers.ts';
import { toPlain } from '../db/reads/plain.ts';

const SubscriptionChannel = builder.enumType('SubscriptionChannel', { values: ['EMAIL', 'SMS'] as const });
const SubscriptionKind = builder.enumType('SubscriptionKind', { values: ['MARKETING', 'TRANSACTIONAL'] as const });
const SubscriptionStatus = builder.enumType('SubscriptionStatus', {
  description: 'CONFIRMED: double opt-in completed (SMS marketing only; e-mail consent is confirmed on subscribe)',
  values: SUBSCRIPTION_STATUSES,
});

builder.prismaObject('CustomerSubscription', {
  description: "A customer's consent to messages of one kind on one channel",
  fields: (t) => ({
    channel: t.expose('channel', { type: SubscriptionChannel, nullable: false }),
    kind: t.expose('kind', { type: SubscriptionKind, nullable: false }),
    status: t.expose('status', { type: SubscriptionStatus, nullable: false }),
    address: t.exposeString('address', { nullable: false, description: 'The e-mail or phone number (E.164) the consent was given for' }),
    triggerAutomations: t.exposeBoolean('triggerAutomations', { nullable: false, description: 'Whether automations were asked to react to the last change' }),
    changedAt: t.expose('changedAt', { type: 'DateTime', nullable: false, description: 'When the status changed, as reported' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false }),
  }),
});

builder.prismaObjectField(Customer, 'subscriptions', (t) =>
  t.relation('subscriptions', { nullable: false, description: 'Consent per channel and kind', query: { orderBy: [{ channel: 'asc' }, { kind: 'asc' }] } }),
);

const UPDATED_AT = 'When the change happened (default: now); a change older than the stored status is not applied';

const MarketingSubscriptionChangeInput = builder.inputType('MarketingSubscriptionChangeInput', {
  fields: (t) => ({
    subscriptionStatus: t.field({ type: SubscriptionStatus, required: true }),
    triggerAutomations: t.boolean({ required: false, description: 'Default false' }),
    updatedAt: t.field({ type: 'DateTime', required: false, description: UPDATED_AT }),
  }),
});

const TransactionalSubscriptionChangeInput = builder.inputType('TransactionalSubscriptionChangeInput', {
  fields: (t) => ({
    subscriptionStatus: t.field({ type: SubscriptionStatus, required: true, description: 'SUBSCRIBED or UNSUBSCRIBED' }),
    updatedAt: t.field({ type: 'DateTime', required: false, description: UPDATED_AT }),
  }),
});

const EmailSubscriptionChangesInput = builder.inputType('EmailSubscriptionChangesInput', {
  fields: (t) => ({
    marketing: t.field({ type: MarketingSubscriptionChangeInput, required: false, description: 'SUBSCRIBED or UNSUBSCRIBED; SUBSCRIBED is stored CONFIRMED' }),
  }),
});

const SmsSubscriptionChangesInput = builder.inputType('SmsSubscriptionChangesInput', {
  fields: (t) => ({
    marketing: t.field({ type: MarketingSubscriptionChangeInput, required: false }),
    transactional: t.field({ type: TransactionalSubscriptionChangeInput, required: false }),
  }),
});

const CustomerSubscriptionsInput = builder.inputType('CustomerSubscriptionsInput', {
  description: 'At least one of email and sms; the customer is found by the e-mail, else the phone number, else created',
  fields: (t) => ({
    email: t.field({
      type: builder.inputType('EmailSubscriptionsInput', {
        fields: (u) => ({
          email: u.string({ required: true }),
          subscriptions: u.field({ type: EmailSubscriptionChangesInput, required: true }),
        }),
      }),
      required: false,
    }),
    sms: t.field({
      type: builder.inputType('SmsSubscriptionsInput', {
        fields: (u) => ({
          phoneNumber: u.string({ required: true, description: 'E.164; spaces, dots, dashes and parentheses are ignored' }),
          subscriptions: u.field({ type: SmsSubscriptionChangesInput, required: true }),
        }),
      }),
      required: false,
    }),
  }),
});

const UpdatedEmailSubscriptions = builder.objectRef<NonNullable<UpdatedSubscriptions['email']>>('UpdatedEmailSubscriptions').implement({
  fields: (t) => ({ marketing: t.boolean({ nullable: true, resolve: (u) => u.marketing ?? null }) }),
});

const UpdatedSmsSubscriptions = builder.objectRef<NonNullable<UpdatedSubscriptions['sms']>>('UpdatedSmsSubscriptions').implement({
  fields: (t) => ({
    marketing: t.boolean({ nullable: true, resolve: (u) => u.marketing ?? null }),
    transactional: t.boolean({ nullable: true, resolve: (u) => u.transactional ?? null }),
  }),
});

const UpdatedSubscriptionsRef = builder.objectRef<UpdatedSubscriptions>('UpdatedSubscriptions').implement({
  description: 'Per change requested: true when applied, false when a newer status was already stored; null when not requested',
  fields: (t) => ({
    email: t.field({ type: UpdatedEmailSubscriptions, nullable: true, resolve: (u) => u.email ?? null }),
    sms: t.field({ type: UpdatedSmsSubscriptions, nullable: true, resolve: (u) => u.sms ?? null }),
  }),
});

const CustomerSubscriptionsPayload = builder
  .objectRef<{ customer: CustomerRow; created: boolean; updatedSubscriptions: UpdatedSubscriptions }>('CustomerSubscriptionsPayload')
  .implement({
    fields: (t) => ({
      customer: t.field({ type: Customer, nullable: false, resolve: (p) => toPlain(p.customer) }),
      created: t.exposeBoolean('created', { nullable: false, description: 'True when no customer had the e-mail or phone number' }),
      updatedSubscriptions: t.field({ type: UpdatedSubscriptionsRef, nullable: false, resolve: (p) => p.updatedSubscriptions }),
    }),
  });

builder.mutationField('updateCustomerSubscriptions', (t) =>
  t.field({
    type: CustomerSubscriptionsPayload,
    nullable: false,
    description: "Sets a customer's e-mail and SMS consent, creating the customer when no customer has the e-mail or phone number",
    authScopes: { scope: 'customers_write' },
    args: { input: t.arg({ type: CustomerSubscriptionsInput, required: true }) },
    resolve: (_root, { input }, ctx) => updateCustomerSubscriptions(ctx.prisma, storeIdOf(ctx), input),
  }),
);

// Customer subscriptions: a customer's consent per channel (EMAIL, SMS) and kind
// (MARKETING, TRANSACTIONAL), read on Customer.subscriptions and set through
// `customerSubscriptionsUpdate`. Every rule lives in domain/customerSubscriptions.ts.
import { SUBSCRIPTION_STATUSES, updateCustomerSubscriptions, type UpdatedSubscriptions } from '../domain/customerSubscriptions.ts';
import type { Customer as CustomerRow } from '../generated/prisma/client.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { Customer } from './customers.ts';
import type { MutationFieldBuilder } from './node.ts';
import { toPlain } from '../db/reads/plain.ts';

const SubscriptionChannel = builder.enumType('SubscriptionChannel', {
  description: 'How messages reach the customer.',
  values: {
    EMAIL: { description: "E-mail, to the customer's e-mail address" },
    SMS: { description: 'Text messages, to a phone number (E.164)' },
  } as const,
});
const SubscriptionKind = builder.enumType('SubscriptionKind', {
  description: 'Which messages a consent covers.',
  values: {
    MARKETING: { description: 'Promotional messages (e-mail and SMS)' },
    TRANSACTIONAL: { description: "Messages about the customer's own purchases (SMS only)" },
  } as const,
});
const SUBSCRIPTION_STATUS_DESCRIPTIONS: Record<(typeof SUBSCRIPTION_STATUSES)[number], string> = {
  SUBSCRIBED: 'Consent given; for SMS marketing, double opt-in not yet completed (e-mail consent is stored CONFIRMED at once)',
  CONFIRMED: 'Consent given and confirmed: SMS marketing after double opt-in, and every e-mail marketing subscription',
  UNSUBSCRIBED: 'Consent withdrawn or refused: no such messages may be sent',
};
const SubscriptionStatus = builder.enumType('SubscriptionStatus', {
  description: 'CONFIRMED: double opt-in completed (SMS marketing only; e-mail consent is confirmed on subscribe)',
  values: Object.fromEntries(SUBSCRIPTION_STATUSES.map((status) => [status, { description: SUBSCRIPTION_STATUS_DESCRIPTIONS[status] }])) as Record<
    (typeof SUBSCRIPTION_STATUSES)[number],
    { description: string }
  >,
});

builder.prismaObject('CustomerSubscription', {
  description: "A customer's consent to messages of one kind on one channel",
  fields: (t) => ({
    channel: t.expose('channel', { type: SubscriptionChannel, nullable: false, description: 'The channel the consent is for' }),
    kind: t.expose('kind', { type: SubscriptionKind, nullable: false, description: 'The kind of messages the consent is for' }),
    status: t.expose('status', { type: SubscriptionStatus, nullable: false, description: 'The current consent status' }),
    address: t.exposeString('address', { nullable: false, description: 'The e-mail or phone number (E.164) the consent was given for' }),
    triggerAutomations: t.exposeBoolean('triggerAutomations', { nullable: false, description: 'Whether automations were asked to react to the last change' }),
    changedAt: t.expose('changedAt', { type: 'DateTime', nullable: false, description: 'When the status changed, as reported' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false, description: 'When this consent record was last written' }),
  }),
});

builder.prismaObjectField(Customer, 'subscriptions', (t) =>
  t.relation('subscriptions', { nullable: false, description: 'Consent per channel and kind, by channel then kind; a pair never set does not appear', query: { orderBy: [{ channel: 'asc' }, { kind: 'asc' }] } }),
);

const UPDATED_AT = 'When the change happened (default: now); a change older than the stored status is not applied';

const MarketingSubscriptionChangeInput = builder.inputType('MarketingSubscriptionChangeInput', {
  description: 'A change of marketing consent.',
  fields: (t) => ({
    subscriptionStatus: t.field({
      type: SubscriptionStatus,
      required: true,
      description: 'The new status: SUBSCRIBED or UNSUBSCRIBED, or CONFIRMED for SMS (double opt-in completed); CONFIRMED for e-mail gives BAD_USER_INPUT',
    }),
    triggerAutomations: t.boolean({ required: false, description: "Whether the merchant's automations should react to this change; default false" }),
    updatedAt: t.field({ type: 'DateTime', required: false, description: UPDATED_AT }),
  }),
});

const TransactionalSubscriptionChangeInput = builder.inputType('TransactionalSubscriptionChangeInput', {
  description: 'A change of transactional (SMS) consent.',
  fields: (t) => ({
    subscriptionStatus: t.field({ type: SubscriptionStatus, required: true, description: 'SUBSCRIBED or UNSUBSCRIBED; CONFIRMED gives BAD_USER_INPUT' }),
    updatedAt: t.field({ type: 'DateTime', required: false, description: UPDATED_AT }),
  }),
});

const EmailSubscriptionChangesInput = builder.inputType('EmailSubscriptionChangesInput', {
  description: 'Consent changes for the e-mail channel.',
  fields: (t) => ({
    marketing: t.field({ type: MarketingSubscriptionChangeInput, required: false, description: 'SUBSCRIBED or UNSUBSCRIBED; SUBSCRIBED is stored CONFIRMED' }),
  }),
});

const SmsSubscriptionChangesInput = builder.inputType('SmsSubscriptionChangesInput', {
  description: 'Consent changes for the SMS channel; either kind, or both.',
  fields: (t) => ({
    marketing: t.field({ type: MarketingSubscriptionChangeInput, required: false, description: 'Marketing SMS: SUBSCRIBED, CONFIRMED or UNSUBSCRIBED' }),
    transactional: t.field({ type: TransactionalSubscriptionChangeInput, required: false, description: 'Transactional SMS: SUBSCRIBED or UNSUBSCRIBED' }),
  }),
});

const CustomerSubscriptionsInput = builder.inputType('CustomerSubscriptionsInput', {
  description: 'At least one of email and sms; the customer is found by the e-mail, else the phone number, else created',
  fields: (t) => ({
    email: t.field({
      type: builder.inputType('EmailSubscriptionsInput', {
        description: 'An e-mail address and the changes of its consent.',
        fields: (u) => ({
          email: u.string({ required: true, description: 'E-mail address (any case, stored lower case); an invalid one gives BAD_USER_INPUT' }),
          subscriptions: u.field({ type: EmailSubscriptionChangesInput, required: true, description: 'The changes per kind' }),
        }),
      }),
      required: false,
      description: 'E-mail consent; its address finds the customer first',
    }),
    sms: t.field({
      type: builder.inputType('SmsSubscriptionsInput', {
        description: 'A phone number and the changes of its consent.',
        fields: (u) => ({
          phoneNumber: u.string({ required: true, description: 'E.164; spaces, dots, dashes and parentheses are ignored' }),
          subscriptions: u.field({ type: SmsSubscriptionChangesInput, required: true, description: 'The changes per kind' }),
        }),
      }),
      required: false,
      description: 'SMS consent; its phone number finds the customer when no e-mail is given or matches',
    }),
  }),
});

const APPLIED = 'True when the change was applied, false when a newer status was already stored; null when not requested';

const UpdatedEmailSubscriptions = builder.objectRef<NonNullable<UpdatedSubscriptions['email']>>('UpdatedEmailSubscriptions').implement({
  description: 'Which requested e-mail consent changes were applied.',
  fields: (t) => ({ marketing: t.boolean({ nullable: true, description: APPLIED, resolve: (u) => u.marketing ?? null }) }),
});

const UpdatedSmsSubscriptions = builder.objectRef<NonNullable<UpdatedSubscriptions['sms']>>('UpdatedSmsSubscriptions').implement({
  description: 'Which requested SMS consent changes were applied.',
  fields: (t) => ({
    marketing: t.boolean({ nullable: true, description: APPLIED, resolve: (u) => u.marketing ?? null }),
    transactional: t.boolean({ nullable: true, description: APPLIED, resolve: (u) => u.transactional ?? null }),
  }),
});

const UpdatedSubscriptionsRef = builder.objectRef<UpdatedSubscriptions>('UpdatedSubscriptions').implement({
  description: 'Per change requested: true when applied, false when a newer status was already stored; null when not requested',
  fields: (t) => ({
    email: t.field({ type: UpdatedEmailSubscriptions, nullable: true, description: 'E-mail changes; null when none was requested', resolve: (u) => u.email ?? null }),
    sms: t.field({ type: UpdatedSmsSubscriptions, nullable: true, description: 'SMS changes; null when none was requested', resolve: (u) => u.sms ?? null }),
  }),
});

const CustomerSubscriptionsPayload = builder
  .objectRef<{ customer: CustomerRow; created: boolean; updatedSubscriptions: UpdatedSubscriptions }>('CustomerSubscriptionsPayload')
  .implement({
    description: 'What customerSubscriptionsUpdate answers: the customer and which changes were applied.',
    fields: (t) => ({
      customer: t.field({ type: Customer, nullable: false, description: 'The customer the consent belongs to, as saved', resolve: (p) => toPlain(p.customer) }),
      created: t.exposeBoolean('created', { nullable: false, description: 'True when no customer had the e-mail or phone number, so one was created' }),
      updatedSubscriptions: t.field({
        type: UpdatedSubscriptionsRef,
        nullable: false,
        description: 'Which requested changes were applied',
        resolve: (p) => p.updatedSubscriptions,
      }),
    }),
  });

/** customerSubscriptionsUpdate, and updateCustomerSubscriptions: its deprecated old name (`deprecationReason`). */
function customerSubscriptionsUpdateField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.field({
    type: CustomerSubscriptionsPayload,
    nullable: false,
    description:
      "Sets a customer's e-mail and SMS consent, finding the customer by the e-mail, else the phone number, and creating it when neither " +
      'matches; in one transaction with customer.created or customer.updated. A change older (updatedAt) than the stored status is not ' +
      'applied (updatedSubscriptions says so). Needs customers_write. Errors: BAD_USER_INPUT for an invalid e-mail or phone number or ' +
      'neither given (nothing written); CONFLICT when the e-mail and the phone number belong to two different customers.',
    deprecationReason,
    authScopes: { scope: 'customers_write' },
    args: {
      input: t.arg({
        type: CustomerSubscriptionsInput,
        required: true,
        description: 'The customer (email and/or sms with its E.164 phone number) and the consent changes per channel and kind',
      }),
    },
    resolve: (_root, { input }, ctx) => updateCustomerSubscriptions(ctx.prisma, storeIdOf(ctx), input),
  });
}

builder.mutationField('customerSubscriptionsUpdate', (t) => customerSubscriptionsUpdateField(t));
builder.mutationField('updateCustomerSubscriptions', (t) => customerSubscriptionsUpdateField(t, 'Use customerSubscriptionsUpdate'));

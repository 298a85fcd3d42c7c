// A customer's consent to e-mail and SMS messages, marketing and transactional (the
// reference's customer subscriptions). One row per customer, channel and kind. The
// customer is found by the e-mail, else by the phone number, and created when neither
// names one; the e-mail and the phone number must not name two different customers.
// A change carries the time it happened (default: now); one older than the stored
// status is not applied, so late retries cannot undo a newer choice.
import type { Customer, SubscriptionChannel, SubscriptionKind, SubscriptionStatus } from '../generated/prisma/client.ts';
import { announceCustomer, emailKey, findCustomerForUpdate, identityProfile, phoneNumberKey, saveCustomerProfile } from './customers.ts';
import { Conflict, Invalid, type FieldIssue } from './errors.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export const SUBSCRIPTION_STATUSES = ['SUBSCRIBED', 'CONFIRMED', 'UNSUBSCRIBED'] as const;

export interface SubscriptionChangeInput {
  subscriptionStatus: SubscriptionStatus;
  /** Marketing only: whether the merchant's automations should react to this change. */
  triggerAutomations?: boolean | null;
  updatedAt?: Date | null;
}

export interface CustomerSubscriptionsInput {
  email?: { email: string; subscriptions: { marketing?: SubscriptionChangeInput | null } } | null;
  sms?: { phoneNumber: string; subscriptions: { marketing?: SubscriptionChangeInput | null; transactional?: SubscriptionChangeInput | null } } | null;
}

/** Per channel and kind named in the request: true when the change was applied, false when a newer one was stored. */
export interface UpdatedSubscriptions {
  email?: { marketing?: boolean };
  sms?: { marketing?: boolean; transactional?: boolean };
}

export interface CustomerSubscriptionsUpdate {
  customer: Customer;
  created: boolean;
  updatedSubscriptions: UpdatedSubscriptions;
}

interface Change {
  channel: SubscriptionChannel;
  kind: SubscriptionKind;
  status: SubscriptionStatus;
  address: string;
  triggerAutomations: boolean;
  changedAt: Date;
}

// E-mail consent is confirmed on subscribe (no double opt-in), so CONFIRMED is only
// something to report for SMS marketing; transactional messages know no confirmation.
function parseChange(channel: SubscriptionChannel, kind: SubscriptionKind, address: string, input: SubscriptionChangeInput, path: string, issues: FieldIssue[]): Change {
  const confirmable = channel === 'SMS' && kind === 'MARKETING';
  if (!confirmable && input.subscriptionStatus === 'CONFIRMED') {
    issues.push({ path: `${path}.subscriptionStatus`, message: 'must be subscribed or unsubscribed' });
  }
  const status = channel === 'EMAIL' && input.subscriptionStatus === 'SUBSCRIBED' ? 'CONFIRMED' : input.subscriptionStatus;
  return { channel, kind, status, address, triggerAutomations: input.triggerAutomations ?? false, changedAt: input.updatedAt ?? new Date() };
}

function parseRequest(input: CustomerSubscriptionsInput) {
  const issues: FieldIssue[] = [];
  if (!input.email && !input.sms) issues.push({ path: '', message: 'name the customer by email or sms (or both)' });
  const email = input.email ? emailKey(input.email.email, 'email.email', issues) : undefined;
  const phoneNumber = input.sms ? phoneNumberKey(input.sms.phoneNumber, 'sms.phoneNumber', issues) : undefined;
  const changes: { change: Change; report: (updated: UpdatedSubscriptions, applied: boolean) => void }[] = [];
  const marketingByEmail = input.email?.subscriptions.marketing;
  if (email && marketingByEmail) {
    changes.push({
      change: parseChange('EMAIL', 'MARKETING', email, marketingByEmail, 'email.subscriptions.marketing', issues),
      report: (updated, applied) => (updated.email = { ...updated.email, marketing: applied }),
    });
  }
  for (const kind of ['marketing', 'transactional'] as const) {
    const requested = input.sms?.subscriptions[kind];
    if (!phoneNumber || !requested) continue;
    changes.push({
      change: parseChange('SMS', kind === 'marketing' ? 'MARKETING' : 'TRANSACTIONAL', phoneNumber, requested, `sms.subscriptions.${kind}`, issues),
      report: (updated, applied) => (updated.sms = { ...updated.sms, [kind]: applied }),
    });
  }
  if (issues.length > 0) throw Invalid.of(issues);
  return { email: email ?? null, phoneNumber, changes };
}

/** The customer both addresses name (locked), or null when neither names one; refuses two different ones. */
async function customerOf(tx: Tx, storeId: string, email: string | null, phoneNumber: string | undefined): Promise<Customer | null> {
  const byEmail = email ? await findCustomerForUpdate(tx, storeId, { email }) : null;
  const byPhone = phoneNumber ? await findCustomerForUpdate(tx, storeId, { phoneNumber }) : null;
  if (byEmail && byPhone && byEmail.id !== byPhone.id) {
    throw new Conflict('sms.phoneNumber belongs to another customer than email.email', { path: 'sms.phoneNumber' });
  }
  const customer = byEmail ?? byPhone;
  if (customer && email && customer.email && customer.email !== email) {
    throw new Conflict('the customer with sms.phoneNumber has another e-mail than email.email', { path: 'email.email' });
  }
  return customer;
}

async function applyChange(tx: Tx, storeId: string, customerId: string, change: Change): Promise<boolean> {
  const key = { customerId, channel: change.channel, kind: change.kind };
  const stored = await tx.customerSubscription.findUnique({ where: { customerId_channel_kind: key }, select: { changedAt: true } });
  if (stored && stored.changedAt > change.changedAt) return false;
  const values = { status: change.status, address: change.address, triggerAutomations: change.triggerAutomations, changedAt: change.changedAt };
  await tx.customerSubscription.upsert({ where: { customerId_channel_kind: key }, create: { storeId, ...key, ...values }, update: values });
  return true;
}

/**
 * Sets the subscription statuses named in the input, creating the customer when no
 * customer has the e-mail or phone number, in one transaction with the customer.created
 * or customer.updated event. Any invalid part writes nothing.
 */
export async function updateCustomerSubscriptions(db: Db | Tx, storeId: string, input: CustomerSubscriptionsInput): Promise<CustomerSubscriptionsUpdate> {
  const { email, phoneNumber, changes } = parseRequest(input);
  return inTransaction(db, async (tx) => {
    const existing = await customerOf(tx, storeId, email, phoneNumber);
    const write = await saveCustomerProfile(tx, storeId, existing, email, identityProfile(phoneNumber), new Map());
    const updatedSubscriptions: UpdatedSubscriptions = {};
    for (const { change, report } of changes) report(updatedSubscriptions, await applyChange(tx, storeId, write.customer.id, change));
    await announceCustomer(tx, storeId, write);
    return { ...write, updatedSubscriptions };
  });
}

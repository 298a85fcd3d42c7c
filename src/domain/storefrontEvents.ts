// Web pixel events sent by storefronts. Each is stored once per store and `eventId`
// (a resent event is accepted and changes nothing, so pixels may retry freely), linked
// to the store's customer found by e-mail, or else by the customer an earlier event of
// the same anonymous client id was linked to. A newly stored event is announced on the
// `storefront_event.created` webhook topic in the same transaction.
import { Invalid, type FieldIssue } from './errors.ts';
import { recordEvent } from './events.ts';
import { newId } from './ids.ts';
import { inTransaction, type Db } from './tx.ts';

export const STOREFRONT_EVENT_NAMES = [
  'product_added_to_cart',
  'product_removed_from_cart',
  'product_viewed',
  'checkout_started',
  'checkout_completed',
  'checkout_contact_info_submitted',
  'page_viewed',
  'collection_viewed',
] as const;

export const STOREFRONT_EVENT_SOURCES = ['AIMERCE'] as const;

const OBJECT_FIELDS = ['cartLine', 'checkout', 'collection', 'productVariant'] as const;
const NULLABLE_OBJECT_FIELDS = ['cart', 'customer'] as const;
const STRING_FIELDS = ['anonymousId', 'customerEmail', 'customerPhone', 'urlWithParams', 'urlWithoutParams'] as const;
const MAX_ID_LENGTH = 255;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export interface StoredEvent {
  id: string;
  created: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the event against the pixel event shape; unknown extra properties are kept. */
export function storefrontEventIssues(body: unknown): FieldIssue[] {
  if (!isObject(body)) return [{ path: '', message: 'body must be a JSON object' }];
  const issues: FieldIssue[] = [];
  const required = (name: string, check: (v: unknown) => boolean, message: string) => {
    if (body[name] === undefined) issues.push({ path: name, message: 'is required' });
    else if (!check(body[name])) issues.push({ path: name, message });
  };
  required('eventId', (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_LENGTH, `must be a string of 1..${MAX_ID_LENGTH} characters`);
  required('eventName', (v) => (STOREFRONT_EVENT_NAMES as readonly unknown[]).includes(v), `must be one of ${STOREFRONT_EVENT_NAMES.join(', ')}`);
  required('timestamp', (v) => typeof v === 'string' && ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date-time');
  required('source', (v) => (STOREFRONT_EVENT_SOURCES as readonly unknown[]).includes(v), `must be one of ${STOREFRONT_EVENT_SOURCES.join(', ')}`);
  for (const name of STRING_FIELDS) {
    if (body[name] !== undefined && typeof body[name] !== 'string') issues.push({ path: name, message: 'must be a string' });
  }
  if (typeof body.customerEmail === 'string' && !EMAIL.test(body.customerEmail)) issues.push({ path: 'customerEmail', message: 'must be an e-mail address' });
  for (const name of OBJECT_FIELDS) {
    if (body[name] !== undefined && !isObject(body[name])) issues.push({ path: name, message: 'must be an object' });
  }
  for (const name of NULLABLE_OBJECT_FIELDS) {
    if (body[name] !== undefined && body[name] !== null && !isObject(body[name])) issues.push({ path: name, message: 'must be an object or null' });
  }
  return issues;
}

function emailOf(event: Record<string, unknown>): string | null {
  const direct = typeof event.customerEmail === 'string' ? event.customerEmail : undefined;
  const nested = isObject(event.customer) && typeof event.customer.email === 'string' ? event.customer.email : undefined;
  const email = direct ?? nested;
  return email && EMAIL.test(email) ? email.toLowerCase() : null;
}

export async function recordStorefrontEvent(db: Db, storeId: string, body: unknown): Promise<StoredEvent> {
  const issues = storefrontEventIssues(body);
  if (issues.length > 0) throw Invalid.of(issues);
  const event = body as Record<string, unknown> & { eventId: string; eventName: string; timestamp: string; source: string };
  const email = emailOf(event);
  const anonymousId = typeof event.anonymousId === 'string' && event.anonymousId !== '' ? event.anonymousId : null;
  return inTransaction(db, async (tx) => {
    const byEmail = email ? await tx.customer.findUnique({ where: { storeId_email: { storeId, email } }, select: { id: true } }) : null;
    const byClient =
      !byEmail && anonymousId
        ? await tx.storefrontEvent.findFirst({
            where: { storeId, anonymousId, customerId: { not: null } },
            orderBy: { createdAt: 'desc' },
            select: { customerId: true },
          })
        : null;
    const id = newId('storefrontEvent');
    const customerId = byEmail?.id ?? byClient?.customerId ?? null;
    const inserted = await tx.storefrontEvent.createMany({
      data: [
        {
          id,
          storeId,
          eventId: event.eventId,
          eventName: event.eventName,
          occurredAt: new Date(event.timestamp),
          source: event.source,
          customerId,
          customerEmail: email,
          anonymousId,
          payload: JSON.parse(JSON.stringify(event)),
        },
      ],
      skipDuplicates: true,
    });
    if (inserted.count === 0) {
      const existing = await tx.storefrontEvent.findUniqueOrThrow({ where: { storeId_eventId: { storeId, eventId: event.eventId } }, select: { id: true } });
      return { id: existing.id, created: false };
    }
    await recordEvent(tx, {
      storeId,
      topic: 'storefront_event.created',
      subjectId: id,
      data: { id, eventId: event.eventId, eventName: event.eventName, occurredAt: event.timestamp, customerId, anonymousId },
    });
    return { id, created: true };
  });
}

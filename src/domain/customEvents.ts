// Custom events: merchant-defined events about a customer (the reference's custom
// events). Each is resolved to one customer of the store by customer.id, else e-mail,
// else phone number, creating a customer when none matches; the profile fields sent with
// it enrich that customer (patch semantics). A stored event is announced on the
// `custom_event.created` webhook topic, all in one transaction per event. A `uniqueId`
// already stored for the store makes the event a silent duplicate that writes nothing.
import type { CustomEvent, Customer } from '../generated/prisma/client.ts';
import {
  announceCustomer,
  CUSTOMER_LOCATION_NUMBER_FIELDS,
  CUSTOMER_LOCATION_STRING_FIELDS,
  declareFields,
  emailKey,
  findCustomerForUpdate,
  isStorableNumber,
  parseCustomerProfile,
  parseIsoDateTime,
  phoneNumberKey,
  profileChanges,
  saveCustomerProfile,
  type CustomerProfileInput,
  type ParsedProfile,
} from './customers.ts';
import { Invalid, isDomainError, type FieldIssue } from './errors.ts';
import { recordEvent } from './events.ts';
import { newId } from './ids.ts';
import { Decimal, isCurrencyCode } from './money.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

export const MAX_EVENTS_PER_BATCH = 100;
const MAX_NAME_LENGTH = 255;
const MAX_UNIQUE_ID_LENGTH = 255;
const MAX_DATA_PROPERTIES = 400;
const MAX_STRING_BYTES = 100 * 1024;
const EXTRA = '$extra';
const CUSTOMER_FIELDS = ['id', 'email', 'phoneNumber', 'firstName', 'lastName', 'location', 'customFields'];
const LOCATION_FIELDS: readonly string[] = [...CUSTOMER_LOCATION_STRING_FIELDS, ...CUSTOMER_LOCATION_NUMBER_FIELDS];

type JsonObject = Record<string, unknown>;

interface ParsedEvent {
  eventName: string;
  customerId?: string;
  email?: string;
  phoneNumber?: string;
  profile: ParsedProfile;
  occurredAt: Date;
  data: JsonObject;
  value?: string;
  valueCurrency?: string;
  uniqueId?: string;
}

export interface CustomEventOutcome {
  /** The stored event: the new one, or for a duplicate the one stored first with its uniqueId. */
  event: CustomEvent;
  duplicate: boolean;
}

export interface CustomEventResult {
  /** Position of the event in the request. */
  index: number;
  outcome: CustomEventOutcome | null;
  /** Why the event was refused (nothing of it written); empty when accepted. */
  issues: FieldIssue[];
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function expectString(value: unknown, path: string, issues: FieldIssue[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  issues.push({ path, message: 'must be a string' });
  return undefined;
}

function unknownProperties(object: JsonObject, known: readonly string[], path: string, issues: FieldIssue[]): void {
  for (const key of Object.keys(object)) if (!known.includes(key)) issues.push({ path: `${path}.${key}`, message: 'is not a known property' });
}

function typedLocation(location: unknown, issues: FieldIssue[]): CustomerProfileInput['location'] {
  if (location === undefined) return undefined;
  if (!isObject(location)) {
    issues.push({ path: 'customer.location', message: 'must be an object' });
    return undefined;
  }
  unknownProperties(location, LOCATION_FIELDS, 'customer.location', issues);
  const typed: JsonObject = {};
  for (const field of CUSTOMER_LOCATION_STRING_FIELDS) typed[field] = expectString(location[field], `customer.location.${field}`, issues);
  for (const field of CUSTOMER_LOCATION_NUMBER_FIELDS) {
    const value = location[field];
    if (value === undefined) continue;
    if (typeof value === 'number') typed[field] = value;
    else issues.push({ path: `customer.location.${field}`, message: 'must be a number' });
  }
  return typed as CustomerProfileInput['location'];
}

function parseCustomer(customer: unknown, issues: FieldIssue[]) {
  if (!isObject(customer)) {
    issues.push({ path: 'customer', message: customer === undefined ? 'is required' : 'must be an object' });
    return { profile: parseCustomerProfile({}, issues) };
  }
  unknownProperties(customer, CUSTOMER_FIELDS, 'customer', issues);
  if (customer.id === undefined && customer.email === undefined && customer.phoneNumber === undefined) {
    issues.push({ path: 'customer', message: 'needs at least one of id, email or phoneNumber' });
  }
  const id = expectString(customer.id, 'customer.id', issues);
  if (id === '') issues.push({ path: 'customer.id', message: 'must not be empty' });
  const rawEmail = expectString(customer.email, 'customer.email', issues);
  const email = rawEmail === undefined ? undefined : emailKey(rawEmail, 'customer.email', issues);
  const rawPhone = expectString(customer.phoneNumber, 'customer.phoneNumber', issues);
  const phoneNumber = rawPhone === undefined ? undefined : phoneNumberKey(rawPhone, 'customer.phoneNumber', issues);
  const profile = parseCustomerProfile(
    {
      firstName: expectString(customer.firstName, 'customer.firstName', issues),
      lastName: expectString(customer.lastName, 'customer.lastName', issues),
      phoneNumber,
      location: typedLocation(customer.location, issues),
      customFields: customer.customFields,
    },
    issues,
    'customer.',
  );
  return { customerId: id || undefined, email, phoneNumber, profile };
}

function oversizedStrings(value: unknown, path: string, issues: FieldIssue[]): void {
  if (typeof value === 'string' && Buffer.byteLength(value, 'utf8') > MAX_STRING_BYTES) issues.push({ path, message: 'must be at most 100 KB' });
  else if (Array.isArray(value)) value.forEach((item, i) => oversizedStrings(item, `${path}.${i}`, issues));
  else if (isObject(value)) for (const [key, item] of Object.entries(value)) oversizedStrings(item, `${path}.${key}`, issues);
}

/** The segmentable properties with their unset values (0, null, "") dropped, and `$extra` as sent. */
function parseData(data: unknown, issues: FieldIssue[]): JsonObject {
  if (data === undefined) return {};
  if (!isObject(data)) {
    issues.push({ path: 'data', message: 'must be an object' });
    return {};
  }
  if (Object.keys(data).length > MAX_DATA_PROPERTIES) issues.push({ path: 'data', message: `must have at most ${MAX_DATA_PROPERTIES} properties` });
  const kept: JsonObject = {};
  for (const [key, value] of Object.entries(data)) {
    const path = `data.${key}`;
    if (key === EXTRA) {
      if (isObject(value)) kept[key] = value;
      else issues.push({ path, message: 'must be an object' });
    } else if (typeof value === 'number' && !isStorableNumber(value)) {
      issues.push({ path, message: 'must be a finite number below 1e35 in magnitude' });
    } else if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      issues.push({ path, message: `must be a string, number or boolean (put objects and arrays under ${EXTRA})` });
    } else if (value !== null && value !== 0 && value !== '') {
      kept[key] = value;
    }
    oversizedStrings(value, path, issues);
  }
  return kept;
}

function parseEvent(body: unknown): ParsedEvent {
  if (!isObject(body)) throw Invalid.of([{ path: '', message: 'the event must be a JSON object' }]);
  const issues: FieldIssue[] = [];
  const eventName = expectString(body.eventName, 'eventName', issues);
  if (body.eventName === undefined) issues.push({ path: 'eventName', message: 'is required' });
  else if (eventName !== undefined && (eventName.trim() === '' || eventName.length > MAX_NAME_LENGTH)) {
    issues.push({ path: 'eventName', message: `must have 1 to ${MAX_NAME_LENGTH} characters` });
  }
  const customer = parseCustomer(body.customer, issues);
  const timestamp = expectString(body.eventTimestamp, 'eventTimestamp', issues);
  const occurredAt = timestamp === undefined ? new Date() : parseIsoDateTime(timestamp);
  if (occurredAt === null) issues.push({ path: 'eventTimestamp', message: 'must be an ISO 8601 date-time with a time zone, e.g. "2026-04-02T12:00:00Z"' });
  let value: string | undefined;
  if (body.value !== undefined) {
    if (typeof body.value === 'number' && isStorableNumber(body.value)) value = String(body.value);
    else issues.push({ path: 'value', message: 'must be a finite number below 1e35 in magnitude' });
  }
  const currency = expectString(body.valueCurrency, 'valueCurrency', issues)?.toUpperCase();
  if (currency !== undefined && !isCurrencyCode(currency)) issues.push({ path: 'valueCurrency', message: 'must be an ISO 4217 currency code, e.g. "USD"' });
  const uniqueId = expectString(body.uniqueId, 'uniqueId', issues);
  if (uniqueId !== undefined && (uniqueId.length === 0 || uniqueId.length > MAX_UNIQUE_ID_LENGTH)) {
    issues.push({ path: 'uniqueId', message: `must have 1 to ${MAX_UNIQUE_ID_LENGTH} characters` });
  }
  const data = parseData(body.data, issues);
  if (issues.length > 0) throw Invalid.of(issues);
  return { eventName: eventName!.trim(), ...customer, occurredAt: occurredAt!, data, value, valueCurrency: currency, uniqueId };
}

/** The event's customer, found by id, else e-mail, else phone number (all locked), or created; enriched with the profile sent. */
async function resolveCustomer(tx: Tx, storeId: string, event: ParsedEvent): Promise<Customer> {
  const declarations = await declareFields(tx, storeId, event.profile.fields);
  const byId = event.customerId ? await findCustomerForUpdate(tx, storeId, { id: event.customerId }) : null;
  const byEmail = event.email ? await findCustomerForUpdate(tx, storeId, { email: event.email }) : null;
  const byPhone = !byId && !byEmail && event.phoneNumber ? await findCustomerForUpdate(tx, storeId, { phoneNumber: event.phoneNumber }) : null;
  const existing = byId ?? byEmail ?? byPhone;
  if (!existing && !event.email && !event.phoneNumber) {
    throw new Invalid('customer.id: the store has no customer with this id; send customer.email or customer.phoneNumber to create one', { path: 'customer.id' });
  }
  // The e-mail goes to a customer without one, unless another customer already has it.
  const email = event.email && (!byEmail || byEmail.id === existing?.id) ? event.email : null;
  const givesEmail = email !== null && existing !== null && existing.email === null;
  if (existing && !givesEmail && !profileChanges(existing, event.profile)) return existing;
  const write = await saveCustomerProfile(tx, storeId, existing, email, event.profile, declarations);
  await announceCustomer(tx, storeId, write);
  return write.customer;
}

function eventView(event: CustomEvent, customer: Pick<Customer, 'id' | 'email' | 'phoneNumbers'>) {
  return {
    id: event.id,
    eventName: event.eventName,
    eventTimestamp: event.occurredAt.toISOString(),
    customer: { id: customer.id, email: customer.email, phoneNumber: customer.phoneNumbers.at(-1) ?? null },
    data: event.data,
    value: event.value === null ? null : event.value.toNumber(),
    valueCurrency: event.valueCurrency,
    uniqueId: event.uniqueId,
    createdAt: event.createdAt.toISOString(),
  };
}

/** Thrown inside the transaction when a concurrent event took the uniqueId first: rolls this one back. */
class DuplicateUniqueId extends Error {}

async function storedWithUniqueId(db: Db | Tx, storeId: string, uniqueId: string | undefined): Promise<CustomEvent | null> {
  return uniqueId === undefined ? null : db.customEvent.findUnique({ where: { storeId_uniqueId: { storeId, uniqueId } } });
}

/** Validates and stores one event (see the header); an invalid one writes nothing. */
export async function recordCustomEvent(db: Db, storeId: string, body: unknown): Promise<CustomEventOutcome> {
  const event = parseEvent(body);
  try {
    return await inTransaction(db, async (tx) => {
      const stored = await storedWithUniqueId(tx, storeId, event.uniqueId);
      if (stored) return { event: stored, duplicate: true };
      const customer = await resolveCustomer(tx, storeId, event);
      const id = newId('customEvent');
      const [created] = await tx.customEvent.createManyAndReturn({
        data: [
          {
            id,
            storeId,
            customerId: customer.id,
            eventName: event.eventName,
            occurredAt: event.occurredAt,
            data: event.data as object,
            value: event.value === undefined ? null : new Decimal(event.value),
            valueCurrency: event.valueCurrency ?? null,
            uniqueId: event.uniqueId ?? null,
          },
        ],
        skipDuplicates: true,
      });
      if (!created) throw new DuplicateUniqueId();
      await recordEvent(tx, { storeId, topic: 'custom_event.created', subjectId: id, data: eventView(created, customer) });
      return { event: created, duplicate: false };
    });
  } catch (error) {
    if (!(error instanceof DuplicateUniqueId)) throw error;
    return { event: (await storedWithUniqueId(db, storeId, event.uniqueId))!, duplicate: true };
  }
}

/**
 * Stores 1 to 100 events, each validated and written on its own (in its own
 * transaction): the result of each, in request order, says whether it was accepted.
 */
export async function recordCustomEvents(db: Db, storeId: string, events: readonly unknown[]): Promise<CustomEventResult[]> {
  if (events.length < 1 || events.length > MAX_EVENTS_PER_BATCH) {
    throw Invalid.of([{ path: 'events', message: `must hold 1 to ${MAX_EVENTS_PER_BATCH} events` }]);
  }
  const results: CustomEventResult[] = [];
  for (const [index, body] of events.entries()) {
    try {
      results.push({ index, outcome: await recordCustomEvent(db, storeId, body), issues: [] });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      results.push({ index, outcome: null, issues: error.issues.length > 0 ? error.issues : [{ path: '', message: error.message }] });
    }
  }
  return results;
}

// Customer profiles (docs/interface-rules.md, "Customers"): created or updated by
// e-mail through the upsert, and found or created by id, e-mail or phone number for
// subscriptions and custom events. Every rule on profile fields lives here so that each
// door applies the same ones. Concurrency: a transaction that looks a customer up by
// e-mail or phone number first takes a transaction-scoped advisory lock on that key, so
// two requests naming one new key create one customer; then the customer row is locked
// FOR UPDATE. Custom field declarations are inserted with ON CONFLICT DO NOTHING in name
// order, before any customer is locked (one fixed lock order: declarations, e-mail, phone
// number, customer; options, in name order, after the customer), so concurrent writers
// cannot deadlock. The upsert keeps that order inside its single statement.
import type { Customer, CustomFieldType, Prisma } from '../generated/prisma/client.ts';
import { Invalid, type FieldIssue } from './errors.ts';
import { recordEvent, recordingCtes } from './events.ts';
import { newId } from './ids.ts';
import { Decimal, type DecimalValue } from './money.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';
import { auditContext } from './audit.ts';

export const CUSTOMER_LOCATION_STRING_FIELDS = [
  'street1',
  'street2',
  'city',
  'state',
  'stateCode',
  'postalCode',
  'country',
  'countryCode',
  'ianaTimeZoneName',
] as const;
export const CUSTOMER_LOCATION_NUMBER_FIELDS = ['latitude', 'longitude'] as const;

type LocationStringField = (typeof CUSTOMER_LOCATION_STRING_FIELDS)[number];
type LocationNumberField = (typeof CUSTOMER_LOCATION_NUMBER_FIELDS)[number];

export type CustomerLocation = Partial<Record<LocationStringField, string> & Record<LocationNumberField, number>>;

/** Profile fields; a field that is absent or null leaves the stored value as it is. */
export interface CustomerProfileInput {
  firstName?: string | null;
  lastName?: string | null;
  phoneNumber?: string | null;
  location?: { [K in keyof CustomerLocation]?: CustomerLocation[K] | null } | null;
  /** Field name -> string, number or boolean; anything else is refused. */
  customFields?: unknown;
}

export interface CustomerUpsertInput extends CustomerProfileInput {
  email: string;
}

export type CustomFieldValueOut = string | number | boolean;

interface SubscriptionView {
  channel: string;
  kind: string;
  status: string;
  address: string;
  changedAt: string;
}

interface CustomerView {
  id: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  name: string | null;
  phoneNumber: string | null;
  phoneNumbers: string[];
  location: CustomerLocation | null;
  customFields: Record<string, CustomFieldValueOut>;
  subscriptions: SubscriptionView[];
  createdAt: string;
  updatedAt: string;
}

// Dot-atom local part and a domain of DNS labels with at least one dot: what the
// `email` format of the REST document (JSON Schema) accepts, so every stored e-mail
// is one the document promises.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const MAX_LOCAL_PART_LENGTH = 64;
const MAX_EMAIL_LENGTH = 254;
const E164 = /^\+[1-9]\d{1,14}$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|([+-])(\d{2}):(\d{2}))$/i;
const MAX_FIELD_NAME_LENGTH = 255;
// STRING values are also option keys in a B-tree index, whose entries must stay under ~2.7 kB.
const MAX_STRING_VALUE_LENGTH = 500;
// NUMBER values are stored as DECIMAL(65, 30): 35 digits before the point.
const MAX_NUMBER_MAGNITUDE = new Decimal('1e35');

/** A number that a DECIMAL(65, 30) column holds exactly enough: finite and below 1e35 in magnitude. */
export function isStorableNumber(value: number): boolean {
  return Number.isFinite(value) && new Decimal(String(value)).abs().lt(MAX_NUMBER_MAGNITUDE);
}

export function isEmail(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && value.indexOf('@') <= MAX_LOCAL_PART_LENGTH && EMAIL.test(value);
}

/** The stored form of an e-mail: trimmed and lower case (the upsert key is case-insensitive). */
export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}

export function isE164(value: string): boolean {
  return E164.test(value);
}

/** The lookup key of a phone number: E.164 with spaces, dots, dashes and parentheses dropped; null when it is not one. */
export function normalizePhoneNumber(value: string): string | null {
  const compact = value.replace(/[\s.()-]/g, '');
  return isE164(compact) ? compact : null;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** An ISO 8601 date-time with a time zone that names a real instant, or null. */
export function parseIsoDateTime(value: string): Date | null {
  const m = ISO_DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 8, 9].map((i) => Number(m[i] ?? 0));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The display name made from first and last name. */
export function displayName(firstName: string | null, lastName: string | null): string | null {
  const name = [firstName, lastName].filter((part): part is string => Boolean(part)).join(' ');
  return name === '' ? null : name;
}

interface ParsedField {
  name: string;
  /** The type a new declaration gets from this value. */
  detected: CustomFieldType;
  value: string | number | boolean;
  date: Date | null;
}

export interface ParsedProfile {
  firstName: string | null | undefined;
  lastName: string | null | undefined;
  phoneNumber: string | undefined;
  location: CustomerLocation | undefined;
  fields: ParsedField[];
}

function optionalName(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function parseLocation(location: CustomerUpsertInput['location'], issues: FieldIssue[]): CustomerLocation | undefined {
  if (location === undefined || location === null) return undefined;
  const parsed: CustomerLocation = {};
  for (const field of CUSTOMER_LOCATION_STRING_FIELDS) {
    const value = location[field];
    if (value === undefined || value === null) continue;
    parsed[field] = value.trim();
  }
  if (parsed.countryCode !== undefined) {
    parsed.countryCode = parsed.countryCode.toUpperCase();
    if (!/^[A-Z]{2}$/.test(parsed.countryCode)) {
      issues.push({ path: 'location.countryCode', message: 'must be an ISO 3166-1 alpha-2 country code, e.g. "US"' });
    }
  }
  if (parsed.ianaTimeZoneName !== undefined && !isTimeZone(parsed.ianaTimeZoneName)) {
    issues.push({ path: 'location.ianaTimeZoneName', message: 'must be an IANA time zone name, e.g. "America/New_York"' });
  }
  const bounds: Record<LocationNumberField, number> = { latitude: 90, longitude: 180 };
  for (const field of CUSTOMER_LOCATION_NUMBER_FIELDS) {
    const value = location[field];
    if (value === undefined || value === null) continue;
    if (!Number.isFinite(value) || Math.abs(value) > bounds[field]) {
      issues.push({ path: `location.${field}`, message: `must be a number from -${bounds[field]} to ${bounds[field]}` });
      continue;
    }
    parsed[field] = value;
  }
  return parsed;
}

function parseCustomFields(customFields: unknown, issues: FieldIssue[]): ParsedField[] {
  if (customFields === undefined || customFields === null) return [];
  if (typeof customFields !== 'object' || Array.isArray(customFields)) {
    issues.push({ path: 'customFields', message: 'must be an object mapping field names to values' });
    return [];
  }
  const fields: ParsedField[] = [];
  for (const [name, value] of Object.entries(customFields as Record<string, unknown>)) {
    const path = `customFields.${name}`;
    if (name.trim() === '' || name.length > MAX_FIELD_NAME_LENGTH) {
      issues.push({ path, message: `field names must have 1 to ${MAX_FIELD_NAME_LENGTH} characters` });
      continue;
    }
    if (typeof value === 'string') {
      if (value.length > MAX_STRING_VALUE_LENGTH) {
        issues.push({ path, message: `must have at most ${MAX_STRING_VALUE_LENGTH} characters` });
        continue;
      }
      const date = parseIsoDateTime(value);
      fields.push({ name, detected: date ? 'DATE' : 'STRING', value, date });
    } else if (typeof value === 'number') {
      if (!isStorableNumber(value)) {
        issues.push({ path, message: 'must be a finite number below 1e35 in magnitude' });
        continue;
      }
      fields.push({ name, detected: 'NUMBER', value, date: null });
    } else if (typeof value === 'boolean') {
      fields.push({ name, detected: 'BOOLEAN', value, date: null });
    } else {
      issues.push({ path, message: 'must be a string, number or boolean' });
    }
  }
  // Name order is the lock order of declarations and options (see the header).
  return fields.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const PHONE_NUMBER_FORMAT = 'must be in E.164 format, e.g. "+14155550100"';

/** The phone number's lookup key, or an issue at `path`. */
export function phoneNumberKey(value: string, path: string, issues: FieldIssue[]): string | undefined {
  const key = normalizePhoneNumber(value);
  if (key === null) issues.push({ path, message: PHONE_NUMBER_FORMAT });
  return key ?? undefined;
}

/** The e-mail's lookup key, or an issue at `path`. */
export function emailKey(value: string, path: string, issues: FieldIssue[]): string | undefined {
  const key = normalizeEmail(value);
  if (isEmail(key)) return key;
  issues.push({ path, message: 'must be a valid e-mail address' });
  return undefined;
}

/** Checks the profile fields; issues are collected under `prefix` (e.g. `customer.`). */
export function parseCustomerProfile(input: CustomerProfileInput, issues: FieldIssue[], prefix = ''): ParsedProfile {
  const own: FieldIssue[] = [];
  const phoneNumber = input.phoneNumber === undefined || input.phoneNumber === null ? undefined : phoneNumberKey(input.phoneNumber, 'phoneNumber', own);
  const location = parseLocation(input.location, own);
  const fields = parseCustomFields(input.customFields, own);
  issues.push(...own.map((issue) => ({ ...issue, path: prefix + issue.path })));
  return { firstName: optionalName(input.firstName), lastName: optionalName(input.lastName), phoneNumber, location, fields };
}

/** A profile that changes nothing but names the customer by this phone number (or none). */
export function identityProfile(phoneNumber?: string): ParsedProfile {
  return { firstName: undefined, lastName: undefined, phoneNumber, location: undefined, fields: [] };
}

/** True when applying the profile would change the customer (custom field values always count). */
export function profileChanges(customer: Customer, profile: ParsedProfile): boolean {
  const { firstName, lastName, phoneNumber, location, fields } = profile;
  const stored = (customer.location ?? {}) as CustomerLocation;
  return (
    (firstName !== undefined && firstName !== customer.firstName) ||
    (lastName !== undefined && lastName !== customer.lastName) ||
    (phoneNumber !== undefined && !customer.phoneNumbers.includes(phoneNumber)) ||
    Object.entries(location ?? {}).some(([field, value]) => stored[field as keyof CustomerLocation] !== value) ||
    fields.length > 0
  );
}

function parseUpsert(input: CustomerUpsertInput): { email: string; profile: ParsedProfile } {
  const issues: FieldIssue[] = [];
  const email = emailKey(input.email, 'email', issues);
  const profile = parseCustomerProfile(input, issues);
  if (issues.length > 0 || email === undefined) throw Invalid.of(issues);
  return { email, profile };
}

function accepts(type: CustomFieldType, field: ParsedField): boolean {
  switch (type) {
    case 'STRING':
      // A DATE-looking string is still a string to a STRING field.
      return typeof field.value === 'string';
    case 'DATE':
      return field.date !== null;
    case 'NUMBER':
      return typeof field.value === 'number';
    case 'BOOLEAN':
      return typeof field.value === 'boolean';
  }
}

const EXPECTED: Record<CustomFieldType, string> = {
  STRING: 'a string',
  DATE: 'an ISO 8601 date-time string',
  NUMBER: 'a number',
  BOOLEAN: 'a boolean',
};

export type FieldDeclarations = Map<string, { id: string; type: CustomFieldType }>;

// Declarations never change once made, so the ones read from the database (committed by
// then) are kept per store: a request naming only known fields reads none. One made in a
// transaction that may still roll back is cached only when a later request reads it.
const declarationCache = new Map<string, FieldDeclarations>();

function cachedDeclarations(storeId: string, names: string[]): FieldDeclarations | undefined {
  const known = declarationCache.get(storeId);
  if (!known || !names.every((name) => known.has(name))) return undefined;
  return new Map(names.map((name) => [name, known.get(name)!]));
}

/** True when every field's declaration is cached, so declaring them reads and writes nothing. */
function declarationsKnown(storeId: string, fields: ParsedField[]): boolean {
  return fields.length === 0 || cachedDeclarations(storeId, fields.map((f) => f.name)) !== undefined;
}

function remember(storeId: string, declared: { id: string; name: string; type: CustomFieldType }[]): void {
  let known = declarationCache.get(storeId);
  if (!known) declarationCache.set(storeId, (known = new Map()));
  for (const d of declared) known.set(d.name, { id: d.id, type: d.type });
}

/**
 * Declares the fields that have no declaration yet and checks every value against its
 * field's type. Runs before any customer is locked (see the header).
 */
export async function declareFields(tx: Tx, storeId: string, fields: ParsedField[]): Promise<FieldDeclarations> {
  if (fields.length === 0) return new Map();
  const byName = cachedDeclarations(storeId, fields.map((f) => f.name)) ?? (await readDeclarations(tx, storeId, fields));
  const issues: FieldIssue[] = [];
  for (const field of fields) {
    const declaration = byName.get(field.name)!;
    if (!accepts(declaration.type, field)) {
      issues.push({
        path: `customFields.${field.name}`,
        message: `custom field "${field.name}" is a ${declaration.type} field and takes ${EXPECTED[declaration.type]}`,
      });
    }
  }
  if (issues.length > 0) throw Invalid.of(issues);
  return byName;
}

/** Reads the declarations of the fields, declaring the missing ones. */
async function readDeclarations(tx: Tx, storeId: string, fields: ParsedField[]): Promise<FieldDeclarations> {
  const names = fields.map((f) => f.name);
  const find = () => tx.customFieldDeclaration.findMany({ where: { storeId, name: { in: names } }, select: { id: true, name: true, type: true } });
  let declared = await find();
  remember(storeId, declared);
  if (declared.length < fields.length) {
    const known = new Set(declared.map((d) => d.name));
    const missing = fields.filter((f) => !known.has(f.name));
    // A concurrent first use of the same name wins or loses here without an error; the re-read sees the winner.
    await tx.customFieldDeclaration.createMany({
      data: missing.map((f) => ({ id: newId('customField'), storeId, name: f.name, type: f.detected })),
      skipDuplicates: true,
    });
    declared = await find();
  }
  return new Map(declared.map((d) => [d.name, { id: d.id, type: d.type }]));
}

function valueColumns(type: CustomFieldType, field: ParsedField) {
  return {
    stringValue: type === 'STRING' ? (field.value as string) : null,
    numberValue: type === 'NUMBER' ? new Decimal(String(field.value)) : null,
    booleanValue: type === 'BOOLEAN' ? (field.value as boolean) : null,
    dateValue: type === 'DATE' ? field.date : null,
  };
}

export type CustomerKey = { id: string } | { email: string } | { phoneNumber: string };

/** Holds every other transaction that looks up or claims this e-mail or phone number in the store until this one ends. */
export async function lockKey(tx: Tx, storeId: string, key: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${storeId}:${key}`}, 0))`;
}

/**
 * The store's customer with this id, e-mail or phone number (lookup keys), locked for the rest of
 * the transaction. An erased customer (privacy.ts) has neither e-mail nor phone number left, and
 * its id finds nothing either, so no later data joins what was erased.
 */
export async function findCustomerForUpdate(tx: Tx, storeId: string, key: CustomerKey): Promise<Customer | null> {
  let rows: { id: string }[];
  if ('id' in key) {
    rows = await tx.$queryRaw`SELECT "id" FROM "Customer" WHERE "storeId" = ${storeId} AND "id" = ${key.id} AND "redactedAt" IS NULL FOR UPDATE`;
  } else if ('email' in key) {
    await lockKey(tx, storeId, key.email);
    rows = await tx.$queryRaw`SELECT "id" FROM "Customer" WHERE "storeId" = ${storeId} AND "email" = ${key.email} FOR UPDATE`;
  } else {
    await lockKey(tx, storeId, key.phoneNumber);
    rows = await tx.$queryRaw`
      SELECT c."id" FROM "Customer" c JOIN "CustomerPhoneNumber" p ON p."customerId" = c."id"
      WHERE p."storeId" = ${storeId} AND p."phoneNumber" = ${key.phoneNumber} FOR UPDATE OF c`;
  }
  if (rows.length === 0) return null;
  return tx.customer.findUniqueOrThrow({ where: { id: rows[0].id } });
}

function mergedLocation(stored: Prisma.JsonValue | null, supplied: CustomerLocation | undefined): CustomerLocation | null {
  const current = (stored ?? null) as CustomerLocation | null;
  if (!supplied) return current;
  return { ...current, ...supplied };
}

export interface CustomerWrite {
  customer: Customer;
  created: boolean;
}

/**
 * Creates a customer with the profile (`existing` null), or applies the profile to
 * `existing`; `email` is given to a new customer or to one that has none yet. The caller
 * has looked up (and so locked) that e-mail and declared the profile's fields. A phone
 * number new to the store's lookup is claimed for this customer.
 */
export async function saveCustomerProfile(
  tx: Tx,
  storeId: string,
  existing: Customer | null,
  email: string | null,
  profile: ParsedProfile,
  declarations: FieldDeclarations,
): Promise<CustomerWrite> {
  let write: CustomerWrite;
  if (!existing) {
    const firstName = profile.firstName ?? null;
    const lastName = profile.lastName ?? null;
    const customer = await tx.customer.create({
      data: {
        id: newId('customer'),
        storeId,
        email,
        firstName,
        lastName,
        name: displayName(firstName, lastName),
        phoneNumbers: profile.phoneNumber ? [profile.phoneNumber] : [],
        location: profile.location ?? undefined,
      },
    });
    write = { customer, created: true };
  } else {
    const firstName = profile.firstName === undefined ? existing.firstName : profile.firstName;
    const lastName = profile.lastName === undefined ? existing.lastName : profile.lastName;
    const phoneNumbers =
      profile.phoneNumber && !existing.phoneNumbers.includes(profile.phoneNumber) ? [...existing.phoneNumbers, profile.phoneNumber] : existing.phoneNumbers;
    const location = mergedLocation(existing.location, profile.location);
    const customer = await tx.customer.update({
      where: { id: existing.id },
      data: { email: existing.email ?? email, firstName, lastName, name: displayName(firstName, lastName), phoneNumbers, location: location ?? undefined },
    });
    write = { customer, created: false };
  }
  await writeCustomFields(tx, write.customer.id, profile.fields, declarations);
  if (profile.phoneNumber) {
    await tx.customerPhoneNumber.createMany({ data: [{ storeId, phoneNumber: profile.phoneNumber, customerId: write.customer.id }], skipDuplicates: true });
  }
  return write;
}

/** The custom field rows of `fields`, in name order, with their declarations' ids and types. */
function customFieldRows(fields: ParsedField[], declarations: FieldDeclarations) {
  return fields.map((f) => {
    const declaration = declarations.get(f.name)!;
    return { declarationId: declaration.id, name: f.name, type: declaration.type, ...valueColumns(declaration.type, f) };
  });
}

/** The value columns of `rows` as the arrays `incomingValues` unnests (string, number, boolean, date). */
function valueArrays(rows: ReturnType<typeof customFieldRows>): unknown[] {
  return [
    rows.map((r) => r.stringValue),
    rows.map((r) => (r.numberValue === null ? null : r.numberValue.toString())),
    rows.map((r) => r.booleanValue),
    rows.map((r) => (r.dateValue === null ? null : r.dateValue.toISOString())),
  ];
}

/**
 * The CTE `incoming` unnesting the parameters from `first` on: declaration ids, names,
 * types, then the four `valueArrays`.
 */
function incomingValues(first: number): string {
  const [ids, names, types, strings, numbers, booleans, dates] = [0, 1, 2, 3, 4, 5, 6].map((i) => `$${first + i}`);
  return `incoming AS (
  SELECT * FROM unnest(${ids}::text[], ${names}::text[], ${types}::text[], ${strings}::text[], ${numbers}::text[]::numeric[], ${booleans}::boolean[], ${dates}::text[]::timestamptz[])
    AS t("declarationId", name, type, "stringValue", "numberValue", "booleanValue", "dateValue")
)`;
}

/**
 * The CTEs writing the rows of `incoming` for the customer `customerId` (an SQL
 * expression over `source`): each value inserted or replaced when it differs, and every string value
 * added to its field's options (the values a segment can pick from).
 */
function customFieldWrites(customerId: string, source: string): string {
  return `written AS (
  INSERT INTO "CustomFieldValue" AS v ("customerId", "declarationId", "stringValue", "numberValue", "booleanValue", "dateValue", "updatedAt")
  SELECT ${customerId}, "declarationId", "stringValue", "numberValue", "booleanValue", "dateValue" AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC' FROM ${source}
  ON CONFLICT ("customerId", "declarationId") DO UPDATE SET
    "stringValue" = excluded."stringValue", "numberValue" = excluded."numberValue", "booleanValue" = excluded."booleanValue",
    "dateValue" = excluded."dateValue", "updatedAt" = excluded."updatedAt"
  -- A value sent again as it is stays as it is: no new row version, and no trigger (audit, change counter) to run for it.
  WHERE (v."stringValue", v."numberValue", v."booleanValue", v."dateValue")
    IS DISTINCT FROM (excluded."stringValue", excluded."numberValue", excluded."booleanValue", excluded."dateValue")
), optioned AS (
  INSERT INTO "CustomFieldOption" ("declarationId", value, "createdAt")
  SELECT "declarationId", "stringValue", now() AT TIME ZONE 'UTC' FROM incoming WHERE "stringValue" IS NOT NULL
  ON CONFLICT DO NOTHING
)`;
}

const WRITE_CUSTOM_FIELDS_SQL = `
WITH ${incomingValues(2)}, ${customFieldWrites('$1', 'incoming')}
SELECT 1`;

async function writeCustomFields(tx: Tx, customerId: string, fields: ParsedField[], declarations: FieldDeclarations): Promise<void> {
  if (fields.length === 0) return;
  const rows = customFieldRows(fields, declarations);
  await tx.$executeRawUnsafe(WRITE_CUSTOM_FIELDS_SQL, customerId, rows.map((r) => r.declarationId), rows.map((r) => r.name), rows.map((r) => r.type), ...valueArrays(rows));
}

/** A stored value as a rule reads it (Prisma's Decimal and Date) or as `reads` answers it (their text). */
interface StoredValue {
  stringValue: string | null;
  numberValue: Prisma.Decimal | string | null;
  booleanValue: boolean | null;
  dateValue: Date | string | null;
  declaration: { name: string; type: CustomFieldType };
}

/** `{name: value}` of a customer's stored custom field values, each typed by its declaration. */
export function customFieldMap(values: StoredValue[]): Record<string, CustomFieldValueOut> {
  const map: Record<string, CustomFieldValueOut> = {};
  for (const v of [...values].sort((a, b) => (a.declaration.name < b.declaration.name ? -1 : 1))) {
    const { name, type } = v.declaration;
    if (type === 'STRING' && v.stringValue !== null) map[name] = v.stringValue;
    else if (type === 'NUMBER' && v.numberValue !== null) map[name] = new Decimal(v.numberValue).toNumber();
    else if (type === 'BOOLEAN' && v.booleanValue !== null) map[name] = v.booleanValue;
    else if (type === 'DATE' && v.dateValue !== null) map[name] = typeof v.dateValue === 'string' ? v.dateValue : v.dateValue.toISOString();
  }
  return map;
}

export const CUSTOM_FIELD_VALUE_SELECT = {
  stringValue: true,
  numberValue: true,
  booleanValue: true,
  dateValue: true,
  declaration: { select: { name: true, type: true } },
} as const;

interface StoredSubscription {
  channel: string;
  kind: string;
  status: string;
  address: string;
  changedAt: Date;
}

function customerView(customer: Customer, values: StoredValue[], subscriptions: StoredSubscription[]): CustomerView {
  return {
    id: customer.id,
    email: customer.email,
    firstName: customer.firstName,
    lastName: customer.lastName,
    name: customer.name,
    phoneNumber: customer.phoneNumbers.at(-1) ?? null,
    phoneNumbers: customer.phoneNumbers,
    location: (customer.location ?? null) as CustomerLocation | null,
    customFields: customFieldMap(values),
    subscriptions: subscriptions.map((s) => ({
      channel: s.channel.toLowerCase(),
      kind: s.kind.toLowerCase(),
      status: s.status.toLowerCase(),
      address: s.address,
      changedAt: s.changedAt.toISOString(),
    })),
    createdAt: customer.createdAt.toISOString(),
    updatedAt: customer.updatedAt.toISOString(),
  };
}

const UTC_ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

// A customer's custom field values and subscriptions in one round trip.
const CUSTOMER_DETAILS_SQL = `
SELECT
  (SELECT coalesce(json_agg(json_build_object(
     'name', d.name, 'type', d.type::text, 'stringValue', v."stringValue", 'numberValue', v."numberValue"::text,
     'booleanValue', v."booleanValue", 'dateValue', to_char(v."dateValue", ${UTC_ISO}))), '[]'::json)
   FROM "CustomFieldValue" v JOIN "CustomFieldDeclaration" d ON d.id = v."declarationId" WHERE v."customerId" = $1) AS "values",
  (SELECT coalesce(json_agg(json_build_object(
     'channel', s.channel::text, 'kind', s.kind::text, 'status', s.status::text, 'address', s.address,
     'changedAt', to_char(s."changedAt", ${UTC_ISO})) ORDER BY s.channel, s.kind), '[]'::json)
   FROM "CustomerSubscription" s WHERE s."customerId" = $1) AS "subscriptions"`;

interface CustomerDetailRows {
  values: { name: string; type: CustomFieldType; stringValue: string | null; numberValue: string | null; booleanValue: boolean | null; dateValue: string | null }[];
  subscriptions: { channel: string; kind: string; status: string; address: string; changedAt: string }[];
}

async function readCustomerDetails(tx: Tx, customerId: string): Promise<{ values: StoredValue[]; subscriptions: StoredSubscription[] }> {
  const [row] = await tx.$queryRawUnsafe<{ values: unknown; subscriptions: unknown }[]>(CUSTOMER_DETAILS_SQL, customerId);
  const parse = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
  const values = parse<CustomerDetailRows['values']>(row.values).map((v) => ({
    stringValue: v.stringValue,
    numberValue: v.numberValue === null ? null : new Decimal(v.numberValue),
    booleanValue: v.booleanValue,
    dateValue: v.dateValue === null ? null : new Date(v.dateValue),
    declaration: { name: v.name, type: v.type },
  }));
  const subscriptions = parse<CustomerDetailRows['subscriptions']>(row.subscriptions).map((s) => ({ ...s, changedAt: new Date(s.changedAt) }));
  return { values, subscriptions };
}

/** Records customer.created or customer.updated with the whole profile as it now stands. */
export async function announceCustomer(tx: Tx, storeId: string, { customer, created }: CustomerWrite): Promise<void> {
  const { values, subscriptions } = await readCustomerDetails(tx, customer.id);
  await recordEvent(tx, {
    storeId,
    topic: created ? 'customer.created' : 'customer.updated',
    subjectId: customer.id,
    data: customerView(customer, values, subscriptions),
  });
}

// The whole upsert in one statement (so one transaction): under the e-mail's advisory lock
// (the lock order of the header), the customer inserted or updated by its e-mail, the
// phone number claimed, the custom field values and options written, and the
// customer.created / customer.updated event recorded with the profile as it now stands.
// Every CTE reads the snapshot from before the statement, so the event's custom fields
// are the stored ones not written now plus the incoming ones; `customerView` is the same
// view built in JavaScript for the other writers of customers. Run on its own, the statement
// is its transaction, so it names the actor to the audit triggers itself ($18).
const UPSERT_CUSTOMER_SQL = `
WITH saved AS (
  INSERT INTO "Customer" AS c (id, "storeId", email, "firstName", "lastName", name, "phoneNumbers", location, "createdAt", "updatedAt")
  SELECT $1, $2, $3, $4::text, $6::text, nullif(concat_ws(' ', $4::text, $6::text), ''),
    CASE WHEN $8::text IS NULL THEN '{}'::text[] ELSE ARRAY[$8::text] END, $9::jsonb, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
  FROM (SELECT pg_advisory_xact_lock(hashtextextended($2 || ':' || $3, 0)),
    CASE WHEN $18::text IS NOT NULL THEN set_config('audit.context', $18::text, true) END) AS email_lock
  ON CONFLICT ("storeId", email) DO UPDATE SET
    "firstName" = CASE WHEN $5::boolean THEN $4::text ELSE c."firstName" END,
    "lastName" = CASE WHEN $7::boolean THEN $6::text ELSE c."lastName" END,
    name = nullif(concat_ws(' ', CASE WHEN $5::boolean THEN $4::text ELSE c."firstName" END, CASE WHEN $7::boolean THEN $6::text ELSE c."lastName" END), ''),
    "phoneNumbers" = CASE WHEN $8::text IS NULL OR $8::text = ANY(c."phoneNumbers") THEN c."phoneNumbers" ELSE array_append(c."phoneNumbers", $8::text) END,
    location = CASE WHEN $9::jsonb IS NULL THEN c.location ELSE coalesce(c.location, '{}'::jsonb) || $9::jsonb END,
    "updatedAt" = excluded."updatedAt"
  RETURNING c.*, (c.xmax = 0) AS created
), claimed AS (
  INSERT INTO "CustomerPhoneNumber" ("storeId", "phoneNumber", "customerId", "createdAt")
  SELECT $2, $8::text, id, now() AT TIME ZONE 'UTC' FROM saved WHERE $8::text IS NOT NULL
  ON CONFLICT DO NOTHING
), ${incomingValues(10)}, ${customFieldWrites('saved.id', 'incoming CROSS JOIN saved')}, field_values AS (
  SELECT d.name, d.type::text AS type, v."stringValue", v."numberValue", v."booleanValue", v."dateValue"
  FROM saved JOIN "CustomFieldValue" v ON v."customerId" = saved.id JOIN "CustomFieldDeclaration" d ON d.id = v."declarationId"
  WHERE v."declarationId" <> ALL($10::text[])
  UNION ALL
  SELECT name, type, "stringValue", "numberValue", "booleanValue", "dateValue" AT TIME ZONE 'UTC' FROM incoming
), typed_values AS (
  SELECT name, CASE type
    WHEN 'STRING' THEN to_jsonb("stringValue") WHEN 'NUMBER' THEN to_jsonb("numberValue"::float8)
    WHEN 'BOOLEAN' THEN to_jsonb("booleanValue") WHEN 'DATE' THEN to_jsonb(to_char("dateValue", ${UTC_ISO})) END AS value
  FROM field_values
), announced AS (
  SELECT CASE WHEN saved.created THEN 'customer.created' ELSE 'customer.updated' END AS topic, saved.id AS "subjectId", jsonb_build_object(
    'id', saved.id, 'email', saved.email, 'firstName', saved."firstName", 'lastName', saved."lastName", 'name', saved.name,
    'phoneNumber', saved."phoneNumbers"[cardinality(saved."phoneNumbers")], 'phoneNumbers', to_jsonb(saved."phoneNumbers"), 'location', saved.location,
    'customFields', (SELECT coalesce(jsonb_object_agg(name, value), '{}'::jsonb) FROM typed_values WHERE value IS NOT NULL),
    'subscriptions', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'channel', lower(s.channel::text), 'kind', lower(s.kind::text), 'status', lower(s.status::text), 'address', s.address,
        'changedAt', to_char(s."changedAt", ${UTC_ISO})) ORDER BY s.channel, s.kind), '[]'::jsonb)
      FROM "CustomerSubscription" s WHERE s."customerId" = saved.id),
    'createdAt', to_char(saved."createdAt", ${UTC_ISO}), 'updatedAt', to_char(saved."updatedAt", ${UTC_ISO})) AS data
  FROM saved
), ${recordingCtes('$17', '$2')}
SELECT id, "storeId", email, "firstName", "lastName", name, "phoneNumbers", location, "createdAt", "updatedAt", created FROM saved`;

/**
 * Creates the customer with this e-mail or updates it, together with its custom fields,
 * options and the customer.created / customer.updated event. Any invalid part refuses
 * the whole request and writes nothing. With the fields' declarations known (cached)
 * that is one statement; a first use of a field name declares it in the same
 * transaction first.
 */
export async function upsertCustomer(db: Db | Tx, storeId: string, input: CustomerUpsertInput): Promise<CustomerWrite> {
  const { email, profile } = parseUpsert(input);
  const upsert = async (tx: Db | Tx) => {
    const declarations = await declareFields(tx, storeId, profile.fields);
    const rows = customFieldRows(profile.fields, declarations);
    const [saved] = await tx.$queryRawUnsafe<(Customer & { created: boolean })[]>(
      UPSERT_CUSTOMER_SQL,
      newId('customer'),
      storeId,
      email,
      profile.firstName ?? null,
      profile.firstName !== undefined,
      profile.lastName ?? null,
      profile.lastName !== undefined,
      profile.phoneNumber ?? null,
      profile.location === undefined ? null : JSON.stringify(profile.location),
      rows.map((r) => r.declarationId),
      rows.map((r) => r.name),
      rows.map((r) => r.type),
      ...valueArrays(rows),
      newId('event'),
      auditContext(),
    );
    const { created, ...customer } = saved;
    return { customer, created };
  };
  return declarationsKnown(storeId, profile.fields) ? upsert(db) : inTransaction(db, upsert);
}

/** The lookup key of a customer e-mail: validated, trimmed, lower case. */
export function customerEmailKey(email: string): string {
  const issues: FieldIssue[] = [];
  const key = emailKey(email, 'email', issues);
  if (key === undefined) throw Invalid.of(issues);
  return key;
}

// ---------------------------------------------------------------- figures a list of customers shows

export interface CustomerOrderFigures {
  ordersCount: number;
  /** What the customer's orders came to, per currency (orders without a total count for nothing). */
  spend: { currency: string; amount: DecimalValue }[];
  lastOrderAt: Date | null;
}

/** The orders of each customer named, counted and summed in one statement (a page of customers at a time). */
export async function customerOrderFigures(db: Db, storeId: string, customerIds: readonly string[]): Promise<Map<string, CustomerOrderFigures>> {
  const groups = await db.order.groupBy({
    by: ['customerId', 'currency'],
    where: { storeId, customerId: { in: [...customerIds] } },
    _count: { _all: true },
    _sum: { totalPrice: true },
    _max: { placedAt: true },
    orderBy: [{ customerId: 'asc' }, { currency: 'asc' }],
  });
  const figures = new Map<string, CustomerOrderFigures>(customerIds.map((id) => [id, { ordersCount: 0, spend: [], lastOrderAt: null }]));
  for (const group of groups) {
    const found = figures.get(group.customerId!)!;
    found.ordersCount += group._count._all;
    found.spend.push({ currency: group.currency, amount: new Decimal(group._sum.totalPrice ?? 0) });
    const last = group._max.placedAt;
    if (last && (!found.lastOrderAt || last > found.lastOrderAt)) found.lastOrderAt = last;
  }
  return figures;
}

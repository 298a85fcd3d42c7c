// Who "the person" of a request to see or erase their data is (see ./erasure.ts for the whole rule).
import { Invalid, NotFound, type FieldIssue } from '../errors.ts';
import { emailKey, lockKey } from '../customers.ts';
import type { Db, Tx } from '../tx.ts';

// ------------------------------------------------------------------ the person

/** Who a request names: a customer by id, or a person by e-mail. */
export type PersonKey = { customerId: string } | { email: string };

export interface Person {
  /** The customers that are the person (the named one first). */
  customerIds: string[];
  /** Their e-mails, lower case. */
  emails: string[];
  /** Their phone numbers (E.164). */
  phoneNumbers: string[];
}

/** Exactly one of the two, checked: the e-mail's lookup key, or the id as given. */
export function personKeyOf(input: { customerId?: string | null; email?: string | null }): PersonKey {
  const issues: FieldIssue[] = [];
  const customerId = input.customerId ?? undefined;
  const email = input.email ?? undefined;
  if ((customerId === undefined) === (email === undefined)) {
    throw Invalid.of([{ path: customerId === undefined ? 'customerId' : 'email', message: 'name the person by exactly one of customerId and email' }]);
  }
  if (customerId !== undefined) return { customerId };
  const key = emailKey(email!, 'email', issues);
  if (key === undefined) throw Invalid.of(issues);
  return { email: key };
}

/** At most this many phone numbers of a person are looked for on orders without an e-mail. */
export const MAX_PHONE_NUMBERS = 10;

interface CustomerIdentity {
  id: string;
  email: string | null;
  phoneNumbers: string[];
}

async function customerById(db: Db | Tx, storeId: string, id: string): Promise<CustomerIdentity> {
  const customer = await db.customer.findFirst({ where: { id, storeId }, select: { id: true, email: true, phoneNumbers: true } });
  if (!customer) throw new NotFound(`the store has no customer ${id}`, { path: 'customerId' });
  return customer;
}

/** The e-mail-less customers the store's phone lookup names for these numbers, other than `except`. */
async function phoneOnlyCustomers(db: Db | Tx, storeId: string, phoneNumbers: string[], except: string | undefined): Promise<CustomerIdentity[]> {
  if (phoneNumbers.length === 0) return [];
  const rows = await db.customerPhoneNumber.findMany({
    where: { storeId, phoneNumber: { in: phoneNumbers }, customer: { email: null, id: except === undefined ? undefined : { not: except } } },
    select: { customer: { select: { id: true, email: true, phoneNumbers: true } } },
    orderBy: { customerId: 'asc' },
  });
  return [...new Map(rows.map((row) => [row.customer.id, row.customer])).values()];
}

function personOf(key: PersonKey, named: CustomerIdentity | null, others: CustomerIdentity[]): Person {
  const customers = [...(named ? [named] : []), ...others];
  const emails = new Set<string>('email' in key ? [key.email] : []);
  for (const customer of customers) if (customer.email) emails.add(customer.email);
  return {
    customerIds: customers.map((c) => c.id),
    emails: [...emails],
    phoneNumbers: [...new Set(customers.flatMap((c) => c.phoneNumbers))],
  };
}

/** The person a key names (see the header). A customer id the store does not have is NotFound; an e-mail nobody has is a person with no records. */
export async function findPerson(db: Db | Tx, storeId: string, key: PersonKey): Promise<Person> {
  const named =
    'customerId' in key
      ? await customerById(db, storeId, key.customerId)
      : await db.customer.findUnique({ where: { storeId_email: { storeId, email: key.email } }, select: { id: true, email: true, phoneNumbers: true } });
  return personOf(key, named, await phoneOnlyCustomers(db, storeId, named?.phoneNumbers ?? [], named?.id));
}

/**
 * The person, with every lookup key naming them held and their customer rows locked until the
 * transaction ends, in the customers' lock order (e-mails, phone numbers, customers: see
 * customers.ts): an upsert or event naming them waits, then finds nobody and starts afresh.
 */
export async function lockPerson(tx: Tx, storeId: string, key: PersonKey): Promise<Person> {
  const byId = 'customerId' in key ? await customerById(tx, storeId, key.customerId) : null;
  const emails = [...new Set(['email' in key ? key.email : byId?.email].filter((e): e is string => Boolean(e)))].sort();
  for (const email of emails) await lockKey(tx, storeId, email);
  const named = byId ?? (await tx.customer.findUnique({ where: { storeId_email: { storeId, email: emails[0] } }, select: { id: true, email: true, phoneNumbers: true } }));
  for (const phoneNumber of [...(named?.phoneNumbers ?? [])].sort()) await lockKey(tx, storeId, phoneNumber);
  const person = personOf(key, named, await phoneOnlyCustomers(tx, storeId, named?.phoneNumbers ?? [], named?.id));
  if (person.customerIds.length > 0) {
    await tx.$queryRawUnsafe(`SELECT id FROM "Customer" WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [...person.customerIds].sort());
  }
  return person;
}

// PUT /v2.2/stores/{storeId}/customers and GET ...?email=: every rule of
// docs/interface-rules.md "Customers" seen through the REST door, each answer checked against the
// OpenAPI document, nothing written by any refused request, and concurrent upserts of
// new e-mails with new custom fields making exactly one customer per e-mail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiClient, call, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { expectValidRestResponse } from '../support/openapi.ts';
import { rowCounts } from '../support/counts.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

const path = (storeId: string) => `/v2.2/stores/${storeId}/customers`;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterAll(async () => server?.close());

type Response = Awaited<ReturnType<typeof call>>;

async function put(body: unknown, secret = store.secret, storeId = store.storeId): Promise<Response> {
  const res = await call(server, 'PUT', path(storeId), { secret, body });
  expectValidRestResponse('PUT', path(storeId), res);
  return res;
}

async function get(email: string | null, secret = store.secret, storeId = store.storeId): Promise<Response> {
  const url = email === null ? path(storeId) : `${path(storeId)}?email=${encodeURIComponent(email)}`;
  const res = await call(server, 'GET', url, { secret });
  expectValidRestResponse('GET', url, res);
  return res;
}

function expectProblem(res: Response, status: number, paths: string[] = []) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, detail: expect.any(String) });
  if (paths.length > 0) {
    const errors = (res.body as { errors: { path: string }[] }).errors;
    expect(errors.map((e) => e.path).sort()).toEqual([...paths].sort());
  }
}

async function events(subjectId: string) {
  return server.db.prisma.event.findMany({ where: { subjectId }, orderBy: { createdAt: 'asc' } });
}

describe('PUT creates and updates by e-mail', () => {
  it('creates a new customer with 201 and exactly {id, email, created}', async () => {
    const res = await put({ email: 'first@example.com', firstName: 'First' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ id: expect.stringMatching(/^cus_[0-9a-z]{20}$/), email: 'first@example.com', created: true });
  });

  it('updates the same customer with 200, matching the e-mail case-insensitively and storing it lower case', async () => {
    const created = (await put({ email: 'Grace.Hopper@Example.COM', firstName: 'Grace' })).body as { id: string; email: string };
    expect(created.email).toBe('grace.hopper@example.com');
    const updated = await put({ email: 'GRACE.HOPPER@example.com', lastName: 'Hopper' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id: created.id, email: 'grace.hopper@example.com', created: false });
    expect(await server.db.prisma.customer.count({ where: { storeId: store.storeId, email: 'grace.hopper@example.com' } })).toBe(1);
  });

  it('records customer.created, then customer.updated, with the customer in the event', async () => {
    const { id } = (await put({ email: 'events@example.com', firstName: 'Eve' })).body as { id: string };
    await put({ email: 'events@example.com', customFields: { plan: 'pro' } });
    const recorded = await events(id);
    expect(recorded.map((e) => e.topic)).toEqual(['customer.created', 'customer.updated']);
    expect(recorded[1].storeId).toBe(store.storeId);
    expect(recorded[1].data).toMatchObject({ id, email: 'events@example.com', firstName: 'Eve', customFields: { plan: 'pro' } });
  });

  it('makes the display name from first and last name, keeping the part not supplied', async () => {
    await put({ email: 'ada@example.com', firstName: 'Ada' });
    const first = (await get('ada@example.com')).body;
    expect(first).toMatchObject({ firstName: 'Ada', name: 'Ada' });
    expect(first).not.toHaveProperty('lastName');
    await put({ email: 'ada@example.com', lastName: 'Lovelace' });
    expect((await get('ada@example.com')).body).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', name: 'Ada Lovelace' });
    await put({ email: 'ada@example.com', firstName: 'Augusta Ada' });
    expect((await get('ada@example.com')).body).toMatchObject({ name: 'Augusta Ada Lovelace' });
  });

  it('appends a phone number only when it is not yet in the list; the latest is phoneNumber', async () => {
    await put({ email: 'phone@example.com', phoneNumber: '+14155550100' });
    await put({ email: 'phone@example.com', phoneNumber: '+442071234567' });
    await put({ email: 'phone@example.com', phoneNumber: '+14155550100' });
    await put({ email: 'phone@example.com', firstName: 'Pat' });
    const body = (await get('phone@example.com')).body as { phoneNumber: string; phoneNumbers: string[] };
    expect(body.phoneNumbers).toEqual(['+14155550100', '+442071234567']);
    expect(body.phoneNumber).toBe('+442071234567');
  });

  it('updates only the location fields supplied', async () => {
    await put({ email: 'where@example.com', location: { street1: '1 Main St', city: 'Springfield', countryCode: 'US', latitude: 39.78, longitude: -89.65 } });
    await put({ email: 'where@example.com', location: { city: 'Shelbyville', ianaTimeZoneName: 'America/Chicago' } });
    expect((await get('where@example.com')).body).toMatchObject({
      location: { street1: '1 Main St', city: 'Shelbyville', countryCode: 'US', latitude: 39.78, longitude: -89.65, ianaTimeZoneName: 'America/Chicago' },
    });
  });

  it('accepts a body with only the e-mail; the reference has no null profile field, so unknown ones are left out', async () => {
    const res = await put({ email: 'bare@example.com' });
    expect(res.status).toBe(201);
    const body = (await get('bare@example.com')).body as Record<string, unknown>;
    expect(body).toMatchObject({ phoneNumbers: [], customFields: {} });
    for (const absent of ['firstName', 'lastName', 'name', 'phoneNumber', 'location']) expect(body).not.toHaveProperty(absent);
  });
});

describe('custom fields', () => {
  const declaration = (name: string) =>
    server.db.prisma.customFieldDeclaration.findUnique({ where: { storeId_name: { storeId: store.storeId, name } }, include: { options: true } });

  it('types each new field by its first value and declares it automatically', async () => {
    await put({
      email: 'typed@example.com',
      customFields: { tier: 'gold', visits: 12.5, newsletter: false, firstOrderAt: '2025-03-01T09:30:00+01:00' },
    });
    expect((await declaration('tier'))?.type).toBe('STRING');
    expect((await declaration('visits'))?.type).toBe('NUMBER');
    expect((await declaration('newsletter'))?.type).toBe('BOOLEAN');
    expect((await declaration('firstOrderAt'))?.type).toBe('DATE');
    expect((await get('typed@example.com')).body).toMatchObject({
      customFields: { tier: 'gold', visits: 12.5, newsletter: false, firstOrderAt: '2025-03-01T08:30:00.000Z' },
    });
  });

  it('tracks the distinct values of STRING fields as options, and none for the other types', async () => {
    await put({ email: 'opt1@example.com', customFields: { colour: 'red', size: 3, member: true, joined: '2024-01-01T00:00:00Z' } });
    await put({ email: 'opt2@example.com', customFields: { colour: 'blue' } });
    await put({ email: 'opt3@example.com', customFields: { colour: 'red' } });
    await put({ email: 'opt1@example.com', customFields: { colour: 'green' } });
    expect((await declaration('colour'))!.options.map((o) => o.value).sort()).toEqual(['blue', 'green', 'red']);
    for (const name of ['size', 'member', 'joined']) expect((await declaration(name))!.options).toEqual([]);
  });

  it('lets a STRING field take a date-looking string, kept as a string', async () => {
    await put({ email: 'note@example.com', customFields: { note: 'hello' } });
    const res = await put({ email: 'note@example.com', customFields: { note: '2025-01-01T00:00:00Z' } });
    expect(res.status).toBe(200);
    expect((await get('note@example.com')).body).toMatchObject({ customFields: { note: '2025-01-01T00:00:00Z' } });
    expect((await declaration('note'))?.type).toBe('STRING');
  });

  it('replaces a value of the same field and keeps the others', async () => {
    await put({ email: 'keep@example.com', customFields: { a1: 'x', b1: 1 } });
    await put({ email: 'keep@example.com', customFields: { b1: 2 } });
    expect((await get('keep@example.com')).body).toMatchObject({ customFields: { a1: 'x', b1: 2 } });
  });

  it('refuses a value of another type than the declaration with 400 naming the field, writing nothing', async () => {
    await put({ email: 'conflict@example.com', customFields: { age: 30, vip: true, since: '2024-05-05T00:00:00Z' } });
    const before = await rowCounts(server.db);
    const cases: [Record<string, unknown>, string][] = [
      [{ age: 'thirty' }, 'customFields.age'],
      [{ age: true }, 'customFields.age'],
      [{ vip: 'yes' }, 'customFields.vip'],
      [{ vip: 1 }, 'customFields.vip'],
      [{ since: 'last year' }, 'customFields.since'],
      [{ since: 5 }, 'customFields.since'],
    ];
    for (const [customFields, field] of cases) {
      const res = await put({ email: 'conflict@example.com', firstName: 'Changed', phoneNumber: '+15550001111', customFields: { brandNew: 'x', ...customFields } });
      expectProblem(res, 400, [field]);
      expect((res.body as { detail: string }).detail).toContain(field.split('.')[1]);
    }
    // Nor does a new customer with a conflicting value come into being.
    expectProblem(await put({ email: 'conflict-new@example.com', customFields: { age: 'x' } }), 400, ['customFields.age']);
    expect(await rowCounts(server.db)).toEqual(before);
    const unchanged = (await get('conflict@example.com')).body;
    expect(unchanged).toMatchObject({ phoneNumbers: [], customFields: { age: 30, vip: true } });
    expect(unchanged).not.toHaveProperty('firstName');
  });

  it('refuses values that are not a string, number or boolean', async () => {
    const before = await rowCounts(server.db);
    for (const value of [null, { nested: 1 }, [1, 2]]) {
      expectProblem(await put({ email: 'shape@example.com', customFields: { bad: value } }), 400, ['customFields.bad']);
    }
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('validation: 400 problem naming every offending input, nothing written', () => {
  const cases: [string, unknown, string[]][] = [
    ['missing e-mail', { firstName: 'No' }, ['email']],
    ['e-mail not a string', { email: 42 }, ['email']],
    ['invalid e-mail', { email: 'not-an-email' }, ['email']],
    ['e-mail without a domain dot', { email: 'user@localhost' }, ['email']],
    ['e-mail with two @', { email: 'a@b@example.com' }, ['email']],
    ['unknown property', { email: 'x@example.com', nickname: 'X' }, ['nickname']],
    ['unknown location property', { email: 'x@example.com', location: { street: 'Main' } }, ['location.street']],
    ['firstName not a string', { email: 'x@example.com', firstName: 5 }, ['firstName']],
    ['lastName null', { email: 'x@example.com', lastName: null }, ['lastName']],
    ['phone not E.164', { email: 'x@example.com', phoneNumber: '415-555-0100' }, ['phoneNumber']],
    ['phone with a leading zero', { email: 'x@example.com', phoneNumber: '+0415555' }, ['phoneNumber']],
    ['location not an object', { email: 'x@example.com', location: 'Paris' }, ['location']],
    ['latitude out of range', { email: 'x@example.com', location: { latitude: 91 } }, ['location.latitude']],
    ['longitude out of range', { email: 'x@example.com', location: { longitude: -181 } }, ['location.longitude']],
    ['latitude not a number', { email: 'x@example.com', location: { latitude: '45' } }, ['location.latitude']],
    ['country code not alpha-2', { email: 'x@example.com', location: { countryCode: 'USA' } }, ['location.countryCode']],
    ['unknown time zone', { email: 'x@example.com', location: { ianaTimeZoneName: 'Mars/Olympus' } }, ['location.ianaTimeZoneName']],
    ['customFields not an object', { email: 'x@example.com', customFields: ['a'] }, ['customFields']],
    ['several shape faults at once', { email: 1, extra: true, location: { city: 2 } }, ['email', 'extra', 'location.city']],
    ['several value faults at once', { email: 'bad', phoneNumber: '12', location: { latitude: 100 } }, ['email', 'phoneNumber', 'location.latitude']],
    ['body is an array', [{ email: 'x@example.com' }], ['']],
    ['body is a JSON string', JSON.stringify('x@example.com'), ['']],
  ];
  for (const [name, body, paths] of cases) {
    it(name, async () => {
      const before = await rowCounts(server.db);
      expectProblem(await put(body), 400, paths);
      expect(await rowCounts(server.db)).toEqual(before);
    });
  }

  it('refuses an empty body and malformed JSON', async () => {
    const before = await rowCounts(server.db);
    expectProblem(await call(server, 'PUT', path(store.storeId), { secret: store.secret }), 400);
    const malformed = await call(server, 'PUT', path(store.storeId), { secret: store.secret, body: '{"email": ' });
    expectProblem(malformed, 400);
    expectValidRestResponse('PUT', path(store.storeId), malformed);
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('GET ?email=', () => {
  it('returns the whole customer', async () => {
    await put({
      email: 'whole@example.com',
      firstName: 'Whole',
      lastName: 'Person',
      phoneNumber: '+14155550199',
      location: { city: 'Oakland', stateCode: 'CA' },
      customFields: { wholeTier: 'gold' },
    });
    const res = await get('WHOLE@example.com');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cus_/),
      email: 'whole@example.com',
      firstName: 'Whole',
      lastName: 'Person',
      name: 'Whole Person',
      phoneNumber: '+14155550199',
      phoneNumbers: ['+14155550199'],
      location: { city: 'Oakland', stateCode: 'CA' },
      customFields: { wholeTier: 'gold' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('is 404 for an unknown e-mail and for another store’s customer', async () => {
    expectProblem(await get('nobody@example.com'), 404);
    await put({ email: 'theirs@example.com' }, other.secret, other.storeId);
    expectProblem(await get('theirs@example.com'), 404);
  });

  it('is 400 when the e-mail is missing, repeated or invalid', async () => {
    expectProblem(await get(null), 400, ['email']);
    expectProblem(await get('not-an-email'), 400, ['email']);
    const twice = `${path(store.storeId)}?email=a@example.com&email=b@example.com`;
    expectProblem(await call(server, 'GET', twice, { secret: store.secret }), 400, ['email']);
  });
});

describe('authentication, scopes and stores', () => {
  it('401 without or with an unknown secret', async () => {
    for (const secret of [undefined, 'sk_unknown']) {
      const res = await call(server, 'PUT', path(store.storeId), { secret, body: { email: 'auth@example.com' } });
      expectProblem(res, 401);
      expectValidRestResponse('PUT', path(store.storeId), res);
      const read = await call(server, 'GET', `${path(store.storeId)}?email=auth@example.com`, { secret });
      expectProblem(read, 401);
      expectValidRestResponse('GET', path(store.storeId), read);
    }
  });

  it('403 for a secret of another store, writing nothing there', async () => {
    const before = await rowCounts(server.db);
    expectProblem(await put({ email: 'cross@example.com' }, other.secret, store.storeId), 403);
    expectProblem(await get('first@example.com', other.secret, store.storeId), 403);
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it('403 without customers_write to upsert and without customers_read to read', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['customers_read']);
    const writer = await addApiClient(server.db, store.storeId, ['customers_write']);
    const before = await rowCounts(server.db);
    expectProblem(await put({ email: 'scoped@example.com' }, reader.secret), 403);
    expect(await rowCounts(server.db)).toEqual(before);
    expect((await put({ email: 'scoped@example.com' }, writer.secret)).status).toBe(201);
    expectProblem(await get('scoped@example.com', writer.secret), 403);
    expect((await get('scoped@example.com', reader.secret)).status).toBe(200);
  });

  it('405 with Allow for another method on the path', async () => {
    const res = await call(server, 'DELETE', path(store.storeId), { secret: store.secret });
    expectProblem(res, 405);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'PUT']);
  });
});

describe('concurrency', () => {
  it('200 parallel upserts over 20 new e-mails make exactly 20 customers, 20 of them answered 201, options complete', { timeout: 180_000 }, async () => {
    const emails = Array.from({ length: 20 }, (_, i) => `race${i}@example.com`);
    const bodies = Array.from({ length: 200 }, (_, i) => ({
      // Mixed case: the same customer is reached by differently written e-mails.
      email: i % 2 === 0 ? emails[i % 20] : emails[i % 20].toUpperCase(),
      firstName: `Racer ${i}`,
      phoneNumber: `+1415555${String(1000 + (i % 10)).padStart(4, '0')}`,
      customFields: {
        raceTier: ['bronze', 'silver', 'gold', 'platinum'][i % 4],
        [`raceExtra${i % 7}`]: `value-${i % 5}`,
        raceScore: i,
        raceVip: i % 3 === 0,
        raceSeen: `2025-01-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`,
      },
    }));
    const responses = await Promise.all(bodies.map((body) => call(server, 'PUT', path(store.storeId), { secret: store.secret, body })));
    expect(responses.map((r) => r.status).filter((s) => s !== 200 && s !== 201)).toEqual([]);
    expect(responses.filter((r) => r.status === 201)).toHaveLength(20);
    const customers = await server.db.prisma.customer.findMany({ where: { storeId: store.storeId, email: { startsWith: 'race' } } });
    expect(customers.map((c) => c.email).sort()).toEqual([...emails].sort());
    for (const res of responses) expect(customers.map((c) => c.id)).toContain((res.body as { id: string }).id);

    const declarations = await server.db.prisma.customFieldDeclaration.findMany({
      where: { storeId: store.storeId, name: { startsWith: 'race' } },
      include: { options: true },
    });
    const byName = new Map(declarations.map((d) => [d.name, d]));
    expect(byName.size).toBe(4 + 7);
    expect(byName.get('raceScore')!.type).toBe('NUMBER');
    expect(byName.get('raceVip')!.type).toBe('BOOLEAN');
    expect(byName.get('raceSeen')!.type).toBe('DATE');
    expect(byName.get('raceTier')!.options.map((o) => o.value).sort()).toEqual(['bronze', 'gold', 'platinum', 'silver']);
    for (let k = 0; k < 7; k++) {
      const expected = [...new Set(bodies.flatMap((b) => (`raceExtra${k}` in b.customFields ? [b.customFields[`raceExtra${k}`] as string] : [])))].sort();
      expect(byName.get(`raceExtra${k}`)!.options.map((o) => o.value).sort()).toEqual(expected);
    }
    // Every phone number a customer was sent is in its list once.
    for (const customer of customers) {
      const sent = new Set(bodies.filter((b) => b.email.toLowerCase() === customer.email).map((b) => b.phoneNumber));
      expect([...customer.phoneNumbers].sort()).toEqual([...sent].sort());
    }
    const created = await server.db.prisma.event.count({ where: { storeId: store.storeId, topic: 'customer.created', subjectId: { in: customers.map((c) => c.id) } } });
    expect(created).toBe(20);
  });

  it('a new field first used concurrently with two types is declared once; the other type is refused, never a 500', { timeout: 120_000 }, async () => {
    const bodies = Array.from({ length: 20 }, (_, i) => ({ email: `split${i}@example.com`, customFields: { splitField: i % 2 === 0 ? i : `text ${i}` } }));
    const responses = await Promise.all(bodies.map((body) => call(server, 'PUT', path(store.storeId), { secret: store.secret, body })));
    const declaration = await server.db.prisma.customFieldDeclaration.findUniqueOrThrow({
      where: { storeId_name: { storeId: store.storeId, name: 'splitField' } },
    });
    const winnerIsNumber = declaration.type === 'NUMBER';
    responses.forEach((res, i) => {
      const fits = (i % 2 === 0) === winnerIsNumber;
      expect(res.status).toBe(fits ? 201 : 400);
    });
    const made = await server.db.prisma.customer.count({ where: { storeId: store.storeId, email: { startsWith: 'split' } } });
    expect(made).toBe(10);
  });
});

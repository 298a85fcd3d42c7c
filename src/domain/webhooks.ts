// Webhook subscriptions and the rules for where a webhook may be sent.
//
// A subscriber URL is checked twice: when the subscription is written, and again
// before every delivery attempt (DNS answers change). Both checks resolve the host
// and refuse it when any address it resolves to is not a public unicast address:
// loopback, private, link-local, multicast, cloud metadata, unspecified and reserved
// ranges, in IPv4 and IPv6, including IPv4 addresses embedded in IPv6 (mapped,
// compatible, NAT64, 6to4). Loopback is allowed only when the service runs with
// WEBHOOKS_ALLOW_LOOPBACK=true (development and tests), and then plain http is
// accepted for loopback targets; everything else must be https.
import dns from 'node:dns';
import net from 'node:net';
import type { DeliveryStatus, WebhookPayload, WebhookSubscription } from '../generated/prisma/client.ts';
import { Conflict, Invalid, isUniqueViolation, NotFound, UnprocessableState, type FieldIssue } from './errors.ts';
import { TOPICS, type Topic } from './events.ts';
import { newId } from './ids.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

// ---------------------------------------------------------------- addresses

export type AddressClass = 'loopback' | 'private' | 'link-local' | 'multicast' | 'cloud metadata' | 'unspecified' | 'reserved';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (A and AAAA). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export interface AddressPolicy {
  allowLoopback: boolean;
  lookup: HostLookup;
}

export const systemLookup: HostLookup = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

interface Prefix {
  bytes: number[];
  bits: number;
}

function prefix(cidr: string): Prefix {
  const [address, bits] = cidr.split('/');
  const bytes = net.isIPv4(address) ? parseIPv4(address) : parseIPv6(address);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, bits: Number(bits) };
}

type Range = Prefix & { class: AddressClass };

function range(cidr: string, addressClass: AddressClass): Range {
  return { ...prefix(cidr), class: addressClass };
}

// Most specific first: the first range that matches names the class.
const IPV4_RANGES: Range[] = [
  range('169.254.169.254/32', 'cloud metadata'), // AWS, GCP, Azure, OpenStack ...
  range('169.254.170.2/32', 'cloud metadata'), // AWS ECS task metadata
  range('100.100.100.200/32', 'cloud metadata'), // Alibaba Cloud
  range('192.0.0.192/32', 'cloud metadata'), // Oracle Cloud
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'private'), // carrier-grade NAT
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'reserved'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'reserved'),
  range('203.0.113.0/24', 'reserved'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'), // includes the broadcast address
];

const IPV6_RANGES: Range[] = [
  range('fd00:ec2::254/128', 'cloud metadata'), // AWS IMDS over IPv6
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('64:ff9b:1::/48', 'private'), // local-use NAT64
  range('100::/64', 'reserved'), // discard-only
  range('2001:db8::/32', 'reserved'), // documentation
  range('2001::/32', 'reserved'), // Teredo tunnels reach arbitrary IPv4 hosts
  range('fc00::/7', 'private'), // unique local
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'private'), // site-local (deprecated)
  range('ff00::/8', 'multicast'),
];

// IPv6 forms that carry an IPv4 address (at byte `offset`): the embedded address decides.
const EMBEDDED_IPV4: (Prefix & { offset: number })[] = [
  { ...prefix('::ffff:0:0/96'), offset: 12 }, // IPv4-mapped
  { ...prefix('::/96'), offset: 12 }, // IPv4-compatible (deprecated)
  { ...prefix('64:ff9b::/96'), offset: 12 }, // NAT64 well-known prefix
  { ...prefix('2002::/16'), offset: 2 }, // 6to4
];

// Host names of metadata services that some resolvers answer inside a cloud.
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

function parseIPv4(text: string): number[] | undefined {
  if (!net.isIPv4(text)) return undefined;
  return text.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (zone id dropped), or undefined. */
function parseIPv6(text: string): number[] | undefined {
  const address = text.split('%')[0];
  if (!net.isIPv6(address)) return undefined;
  let head = address;
  const tailBytes: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    tailBytes.push(...parseIPv4(dotted[1])!);
    head = address.slice(0, -dotted[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').filter((g) => g !== '').map((g) => parseInt(g, 16)) : []);
  const leftGroups = groups(left);
  const rightGroups = groups(right);
  const missing = 8 - tailBytes.length / 2 - leftGroups.length - rightGroups.length;
  const all = [...leftGroups, ...Array<number>(right === undefined ? 0 : missing).fill(0), ...rightGroups];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  bytes.push(...tailBytes);
  return bytes.length === 16 ? bytes : undefined;
}

function matches(bytes: number[], p: Prefix): boolean {
  if (bytes.length !== p.bytes.length) return false;
  let bits = p.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (p.bytes[i] & mask)) return false;
  }
  return true;
}

/** Why an address must not receive webhooks, or null for a public unicast address. */
export function classifyAddress(address: string): AddressClass | null {
  const v4 = parseIPv4(address);
  if (v4) return IPV4_RANGES.find((r) => matches(v4, r))?.class ?? null;
  const v6 = parseIPv6(address);
  if (!v6) return 'reserved';
  const own = IPV6_RANGES.find((r) => matches(v6, r));
  if (own) return own.class;
  const embedded = EMBEDDED_IPV4.find((e) => matches(v6, e));
  if (embedded) {
    const inner = v6.slice(embedded.offset, embedded.offset + 4).join('.');
    return classifyAddress(inner);
  }
  return null;
}

// ---------------------------------------------------------------- subscriber URLs

const MAX_URL_LENGTH = 2048;

export interface WebhookTarget {
  url: URL;
  /** The host name as the request names it (no IPv6 brackets). */
  host: string;
  /** Every address the host resolved to; each one passed the policy. */
  addresses: ResolvedAddress[];
}

function urlIssue(message: string): Invalid {
  return new Invalid(message, { path: 'url' });
}

/** The server setting a developer is looking for when a local receiver is refused. */
const LOOPBACK_HINT = 'plain http to a loopback receiver is accepted only when the server runs with WEBHOOKS_ALLOW_LOOPBACK=true (development only)';

function namesLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || (net.isIP(host) !== 0 && classifyAddress(host) === 'loopback');
}

/** Syntax rules of a subscriber URL, without resolving it. */
function parseSubscriberUrl(raw: string, policy: Pick<AddressPolicy, 'allowLoopback'>): URL | FieldIssue {
  if (raw.length > MAX_URL_LENGTH) return { path: 'url', message: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { path: 'url', message: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowLoopback)) {
    return { path: 'url', message: url.protocol === 'http:' && namesLoopback(url.hostname) ? `must use https; ${LOOPBACK_HINT}` : 'must use https' };
  }
  if (url.username || url.password) return { path: 'url', message: 'must not contain credentials; use the subscription secret' };
  return url;
}

function withArticle(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}

/**
 * Resolves the URL's host and checks every address against the policy. Throws
 * Invalid (path `url`) naming the refused address and its class.
 */
export async function checkWebhookTarget(raw: string, policy: AddressPolicy): Promise<WebhookTarget> {
  const parsed = parseSubscriberUrl(raw, policy);
  if (!(parsed instanceof URL)) throw urlIssue(parsed.message);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const name = host.toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(name)) throw urlIssue(`${host} is a cloud metadata service; webhooks are only sent to public addresses`);

  let addresses: ResolvedAddress[];
  const family = net.isIP(host);
  if (family !== 0) {
    addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await policy.lookup(host);
    } catch (error) {
      throw urlIssue(`host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (addresses.length === 0) throw urlIssue(`host ${host} does not resolve`);
  }
  for (const { address } of addresses) {
    const addressClass = classifyAddress(address);
    if (addressClass === null || (addressClass === 'loopback' && policy.allowLoopback)) continue;
    const hint = addressClass === 'loopback' ? ` (${LOOPBACK_HINT.replace('plain http to a loopback receiver is', 'loopback is')})` : '';
    throw urlIssue(`${host} resolves to ${address}, ${withArticle(addressClass)} address; webhooks are only sent to public addresses${hint}`);
  }
  if (parsed.protocol === 'http:' && !addresses.every((a) => classifyAddress(a.address) === 'loopback')) {
    throw urlIssue('must use https (plain http is accepted for loopback addresses only)');
  }
  return { url: parsed, host, addresses };
}

// ---------------------------------------------------------------- subscriptions

const MAX_SECRET_LENGTH = 512;
// The secret travels as `Authorization: Bearer <secret>`: visible ASCII, no spaces.
const SECRET_PATTERN = /^[\x21-\x7e]+$/;

export interface WebhookSubscriptionInput {
  url: string;
  /** Sent as the bearer token of every delivery; omitted or null sends none. */
  secret?: string | null;
  topics: readonly string[];
  enabled?: boolean | null;
}

const MAX_EXTERNAL_ID_LENGTH = 255;

/** Fields to change; absent (or null, except for `secret`) leaves a field as it is. */
export interface WebhookSubscriptionChanges {
  url?: string | null;
  /** null removes the secret. */
  secret?: string | null;
  topics?: readonly string[] | null;
  enabled?: boolean | null;
  /** null removes the external id. */
  externalId?: string | null;
}

function topicIssues(topics: readonly string[]): FieldIssue[] {
  if (topics.length === 0) return [{ path: 'topics', message: `must name at least one topic of: ${TOPICS.join(', ')}` }];
  return topics.flatMap((topic, i) =>
    (TOPICS as readonly string[]).includes(topic) ? [] : [{ path: `topics.${i}`, message: `unknown topic "${topic}"; known topics: ${TOPICS.join(', ')}` }],
  );
}

function secretIssues(secret: string | null | undefined): FieldIssue[] {
  if (secret === undefined || secret === null) return [];
  if (secret.length === 0 || secret.length > MAX_SECRET_LENGTH || !SECRET_PATTERN.test(secret)) {
    return [{ path: 'secret', message: `must be 1 to ${MAX_SECRET_LENGTH} visible ASCII characters without spaces` }];
  }
  return [];
}

function externalIdIssues(externalId: string | null | undefined): FieldIssue[] {
  if (externalId === undefined || externalId === null) return [];
  if (externalId.length === 0 || externalId.length > MAX_EXTERNAL_ID_LENGTH) {
    return [{ path: 'externalId', message: `must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters` }];
  }
  return [];
}

/** Checks every field given; all syntax issues are reported together, then the URL's addresses. */
async function validate(
  fields: { url?: string; topics?: readonly string[]; secret?: string | null; externalId?: string | null },
  policy: AddressPolicy,
): Promise<void> {
  const issues: FieldIssue[] = [...externalIdIssues(fields.externalId)];
  if (fields.url !== undefined) {
    const parsed = parseSubscriberUrl(fields.url, policy);
    if (!(parsed instanceof URL)) issues.push(parsed);
  }
  if (fields.topics !== undefined) issues.push(...topicIssues(fields.topics));
  issues.push(...secretIssues(fields.secret));
  if (issues.length > 0) throw Invalid.of(issues);
  if (fields.url !== undefined) await checkWebhookTarget(fields.url, policy);
}

function distinctTopics(topics: readonly string[]): Topic[] {
  return [...new Set(topics)] as Topic[];
}

/** `policy`: the address rules the URL is checked with (WEBHOOKS_ALLOW_LOOPBACK's, or the demo data's loopback receiver's). */
export async function createWebhookSubscription(
  db: Db | Tx,
  storeId: string,
  input: WebhookSubscriptionInput,
  policy: AddressPolicy,
): Promise<WebhookSubscription> {
  await validate(input, policy);
  return inTransaction(db, (tx) =>
    tx.webhookSubscription.create({
      data: {
        id: newId('webhookSubscription'),
        storeId,
        url: input.url,
        secret: input.secret ?? null,
        topics: distinctTopics(input.topics),
        enabled: input.enabled ?? true,
      },
    }),
  );
}

/** Changes the fields given. Pending deliveries go to the new URL; a disabled subscription's deliveries wait. */
export async function updateWebhookSubscription(
  db: Db | Tx,
  storeId: string,
  id: string,
  changes: WebhookSubscriptionChanges,
  policy: AddressPolicy,
): Promise<WebhookSubscription> {
  const existing = await db.webhookSubscription.findFirst({ where: { id, storeId }, select: { id: true } });
  if (!existing) throw new NotFound(`webhook subscription ${id} not found`, { path: 'id' });
  const url = changes.url ?? undefined;
  const topics = changes.topics ?? undefined;
  await validate({ url, topics, secret: changes.secret, externalId: changes.externalId }, policy);
  return inTransaction(db, async (tx) => {
    if (changes.externalId) await refuseTakenExternalId(tx, storeId, changes.externalId, id);
    return tx.webhookSubscription.update({
      where: { id },
      data: {
        url,
        secret: changes.secret,
        topics: topics && distinctTopics(topics),
        enabled: changes.enabled ?? undefined,
        externalId: changes.externalId,
      },
    });
  });
}

async function refuseTakenExternalId(tx: Tx, storeId: string, externalId: string, exceptId: string): Promise<void> {
  const holder = await tx.webhookSubscription.findFirst({ where: { storeId, externalId, id: { not: exceptId } }, select: { id: true } });
  if (holder) throw new Conflict(`webhook ${holder.id} already has externalId "${externalId}"`, { path: 'externalId' });
}

/** Deletes the subscription with its pending and past deliveries. */
export async function deleteWebhookSubscription(db: Db | Tx, storeId: string, id: string): Promise<void> {
  const { count } = await inTransaction(db, (tx) => tx.webhookSubscription.deleteMany({ where: { id, storeId } }));
  if (count === 0) throw new NotFound(`webhook subscription ${id} not found`, { path: 'id' });
}

// ---------------------------------------------------------------- return webhooks of the reference

/**
 * The reference document's webhooks have one topic, `return`, and a payload kind. They
 * receive our return topics, shaped as the kind says when delivered; a backfill announces
 * every return that already exists on a topic of its own, delivered to that webhook only.
 */
export const RETURN_WEBHOOK_TOPICS: readonly Topic[] = ['return.created', 'return.updated'];
export const RETURN_BACKFILL_TOPIC = 'return.backfill';

/** A LOOP webhook also carries the platform's label webhook: it receives our label topics too. */
const LOOP_LABEL_TOPICS: readonly Topic[] = ['return_label.created', 'return_label.updated'];

function returnWebhookTopics(payload: ReturnWebhookPayload): Topic[] {
  return payload === 'LOOP' ? [...RETURN_WEBHOOK_TOPICS, ...LOOP_LABEL_TOPICS] : [...RETURN_WEBHOOK_TOPICS];
}

export type ReturnWebhookPayload = Exclude<WebhookPayload, 'NATIVE'>;

export interface ReturnWebhookInput {
  url: string;
  /** Sent as the bearer token of every delivery; null sends none. */
  secret?: string | null;
  payload: ReturnWebhookPayload;
  /** A webhook of the store with this externalId is updated instead of a new one created. */
  externalId?: string | null;
  /** Announce every return that exists now to this webhook. */
  backfill?: boolean | null;
}

const BATCH = 1_000;

type Position = { createdAt: Date; id: string };

/** Reads rows oldest first (createdAt, then id) a batch at a time, handing each batch on; answers how many. */
async function inCreationOrder<T extends Position>(
  read: (page: { where: object; orderBy: object[]; take: number }) => Promise<T[]>,
  handle: (rows: T[]) => Promise<void>,
): Promise<number> {
  let after: Position | undefined;
  let count = 0;
  for (;;) {
    const rows = await read({
      where: after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {},
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: BATCH,
    });
    if (rows.length === 0) return count;
    await handle(rows);
    count += rows.length;
    after = rows[rows.length - 1];
  }
}

function queueDeliveries(tx: Tx, subscriptionId: string, events: { id: string; subjectId: string }[]) {
  return tx.webhookDelivery.createMany({
    data: events.map((e) => ({ id: newId('webhookDelivery'), eventId: e.id, subscriptionId, subjectId: e.subjectId })),
  });
}

/** Queues one backfill event per existing return, delivered to this subscription only, oldest first. */
async function backfillReturns(tx: Tx, storeId: string, subscriptionId: string): Promise<void> {
  await inCreationOrder(
    ({ where, ...page }) => tx.return.findMany({ where: { AND: [{ storeId }, where] }, ...page, select: { id: true, number: true, status: true, createdAt: true } }),
    async (returns) => {
      const events = returns.map((r) => ({ id: newId('event'), storeId, topic: RETURN_BACKFILL_TOPIC, subjectId: r.id, data: { id: r.id, number: r.number, status: r.status } }));
      await tx.event.createMany({ data: events });
      await queueDeliveries(tx, subscriptionId, events);
    },
  );
}

/** Creates a return webhook, or updates the store's webhook with the same externalId. */
export async function saveReturnWebhook(
  db: Db,
  storeId: string,
  input: ReturnWebhookInput,
  policy: AddressPolicy,
): Promise<{ subscription: WebhookSubscription; created: boolean }> {
  await validate({ url: input.url, secret: input.secret, externalId: input.externalId }, policy);
  try {
    return await writeReturnWebhook(db, storeId, input);
  } catch (error) {
    // Two requests created the same new externalId at once: the loser updates the winner's.
    if (!isUniqueViolation(error)) throw error;
    return writeReturnWebhook(db, storeId, input);
  }
}

function writeReturnWebhook(db: Db, storeId: string, input: ReturnWebhookInput): Promise<{ subscription: WebhookSubscription; created: boolean }> {
  return inTransaction(db, async (tx) => {
    const fields = { url: input.url, secret: input.secret ?? null, payload: input.payload, topics: returnWebhookTopics(input.payload) };
    const existing = input.externalId
      ? await tx.webhookSubscription.findFirst({ where: { storeId, externalId: input.externalId }, select: { id: true } })
      : null;
    const subscription = existing
      ? await tx.webhookSubscription.update({ where: { id: existing.id }, data: fields })
      : await tx.webhookSubscription.create({ data: { id: newId('webhookSubscription'), storeId, externalId: input.externalId ?? null, ...fields } });
    if (input.backfill) await backfillReturns(tx, storeId, subscription.id);
    return { subscription, created: !existing };
  });
}

/**
 * Delivers again, to this subscription, every retained event of its topics since `since`
 * (oldest first, after whatever it still has pending). Answers how many were queued.
 */
export async function replayWebhookSubscription(db: Db, storeId: string, id: string, since: Date): Promise<number> {
  if (Number.isNaN(since.getTime())) throw Invalid.of([{ path: 'since', message: 'must be an ISO 8601 date-time' }]);
  return inTransaction(db, async (tx) => {
    const subscription = await tx.webhookSubscription.findFirst({ where: { id, storeId }, select: { id: true, topics: true, enabled: true } });
    if (!subscription) throw new NotFound(`webhook subscription ${id} not found`, { path: 'id' });
    refuseWhileDisabled(subscription, 'replayed');
    return inCreationOrder(
      ({ where, ...page }) =>
        tx.event.findMany({
          where: { AND: [{ storeId, topic: { in: subscription.topics }, createdAt: { gte: since } }, where] },
          ...page,
          select: { id: true, subjectId: true, createdAt: true },
        }),
      async (events) => {
        await queueDeliveries(tx, subscription.id, events);
      },
    );
  });
}

/**
 * A disabled subscription's deliveries wait until it is enabled again: queuing more for it
 * would only add to what waits, so replays and retries are refused until then.
 */
function refuseWhileDisabled(subscription: { enabled: boolean }, what: string): void {
  if (!subscription.enabled) throw new UnprocessableState(`the subscription is disabled: nothing can be ${what} until it is enabled again`, { path: 'id' });
}

/**
 * Delivers one event again to the subscription of a delivery that failed for good
 * (DISCARDED): a new delivery of the same event, queued after whatever the subscription
 * still has pending. Answers the new delivery's id.
 */
export async function retryWebhookDelivery(db: Db, storeId: string, deliveryId: string): Promise<string> {
  return inTransaction(db, async (tx) => {
    const delivery = await tx.webhookDelivery.findFirst({
      where: { id: deliveryId, subscription: { storeId } },
      select: { status: true, eventId: true, subjectId: true, subscription: { select: { id: true, enabled: true } } },
    });
    if (!delivery) throw new NotFound(`webhook delivery ${deliveryId} not found`, { path: 'id' });
    if (delivery.status !== 'DISCARDED') {
      throw new UnprocessableState(`only a delivery that failed for good (DISCARDED) can be retried; this one is ${delivery.status}`, { path: 'id' });
    }
    refuseWhileDisabled(delivery.subscription, 'retried');
    const id = newId('webhookDelivery');
    await tx.webhookDelivery.create({ data: { id, eventId: delivery.eventId, subscriptionId: delivery.subscription.id, subjectId: delivery.subjectId } });
    return id;
  });
}

// ---------------------------------------------------------------- finished history

export interface FinishedAttempt {
  startedAt: Date;
  durationMs: number;
  /** The receiver's HTTP status; null when none came (refused, timed out ...). */
  responseStatus: number | null;
  /** Why the attempt failed, as the dispatcher words it; null for a 2xx answer. */
  error: string | null;
}

export interface FinishedDelivery {
  eventId: string;
  /** DELIVERED: the last attempt was answered 2xx, every earlier one failed. DISCARDED: every attempt failed. */
  status: Extract<DeliveryStatus, 'DELIVERED' | 'DISCARDED'>;
  /** Oldest first; attempt numbers follow their order. */
  attempts: FinishedAttempt[];
}

const MAX_RECORDED_ATTEMPTS = 100;

const answered = (attempt: FinishedAttempt) => attempt.responseStatus !== null && attempt.responseStatus >= 200 && attempt.responseStatus < 300;

/**
 * Records deliveries to a subscription that are already over (history brought from elsewhere,
 * the demo data's log), each with its attempts, as the dispatcher would have left them. Never
 * PENDING, and counted as queued, so no dispatcher ever takes one up: writing them sends
 * nothing. The events must be the store's and of the subscription's topics. Answers the ids.
 */
export async function recordFinishedDeliveries(db: Db | Tx, storeId: string, subscriptionId: string, deliveries: readonly FinishedDelivery[]): Promise<string[]> {
  return inTransaction(db, async (tx) => {
    const subscription = await tx.webhookSubscription.findFirst({ where: { id: subscriptionId, storeId }, select: { id: true, topics: true } });
    if (!subscription) throw new NotFound(`webhook subscription ${subscriptionId} not found`, { path: 'subscriptionId' });
    const events = await tx.event.findMany({
      where: { storeId, id: { in: [...new Set(deliveries.map((d) => d.eventId))] } },
      select: { id: true, topic: true, subjectId: true, createdAt: true },
    });
    const issues: FieldIssue[] = [];
    deliveries.forEach((delivery, i) => {
      const at = `deliveries.${i}`;
      const event = events.find((e) => e.id === delivery.eventId);
      if (!event) issues.push({ path: `${at}.eventId`, message: `event ${delivery.eventId} not found` });
      else if (!subscription.topics.includes(event.topic)) issues.push({ path: `${at}.eventId`, message: `event ${event.id} is ${event.topic}, not a topic of the subscription` });
      const { attempts } = delivery;
      if (attempts.length === 0 || attempts.length > MAX_RECORDED_ATTEMPTS) issues.push({ path: `${at}.attempts`, message: `must list 1 to ${MAX_RECORDED_ATTEMPTS} attempts` });
      attempts.forEach((attempt, n) => {
        if (Number.isNaN(attempt.startedAt.getTime()) || (n > 0 && attempt.startedAt < attempts[n - 1].startedAt)) {
          issues.push({ path: `${at}.attempts.${n}.startedAt`, message: 'must be a time no earlier than the attempt before' });
        }
        if (!Number.isSafeInteger(attempt.durationMs) || attempt.durationMs < 0) issues.push({ path: `${at}.attempts.${n}.durationMs`, message: 'must be a whole number of at least 0' });
        const last = n === attempts.length - 1;
        if (answered(attempt) && !(last && delivery.status === 'DELIVERED')) {
          issues.push({ path: `${at}.attempts.${n}`, message: 'only the last attempt of a DELIVERED delivery is answered 2xx' });
        }
        if (!answered(attempt) && last && delivery.status === 'DELIVERED') issues.push({ path: `${at}.attempts.${n}`, message: 'the last attempt of a DELIVERED delivery is answered 2xx' });
        if (!answered(attempt) && !attempt.error) issues.push({ path: `${at}.attempts.${n}.error`, message: 'a failed attempt says why' });
      });
    });
    if (issues.length > 0) throw Invalid.of(issues);
    const rows = deliveries.map((delivery) => {
      const event = events.find((e) => e.id === delivery.eventId)!;
      const last = delivery.attempts[delivery.attempts.length - 1];
      return {
        id: newId('webhookDelivery'),
        eventId: event.id,
        subscriptionId,
        subjectId: event.subjectId,
        status: delivery.status,
        attemptCount: delivery.attempts.length,
        nextAttemptAt: last.startedAt,
        lastError: delivery.status === 'DELIVERED' ? null : last.error,
        completedAt: new Date(last.startedAt.getTime() + last.durationMs),
        createdAt: event.createdAt,
        queued: true,
      };
    });
    await tx.webhookDelivery.createMany({ data: rows });
    await tx.deliveryAttempt.createMany({
      data: rows.flatMap((row, i) =>
        deliveries[i].attempts.map((attempt, n) => ({
          id: newId('deliveryAttempt'),
          deliveryId: row.id,
          attemptNumber: n + 1,
          startedAt: attempt.startedAt,
          durationMs: attempt.durationMs,
          responseStatus: attempt.responseStatus,
          error: attempt.error,
        })),
      ),
    });
    return rows.map((row) => row.id);
  });
}

// Webhooks: subscriptions (never exposing their secret), their deliveries with every
// attempt, and the mutations that manage subscriptions. Rules (URL and address checks,
// topics, secrets) live in domain/webhooks.ts; the dispatcher in src/webhooks writes
// the deliveries and attempts read here.
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { WebhookSubscription as WebhookSubscriptionRow } from '../generated/prisma/client.ts';
import type { Scope } from '../auth/scopes.ts';
import { TOPICS } from '../domain/events.ts';
import { RETURN_WEBHOOK_TOPICS } from '../domain/webhooks.ts';
import {
  createWebhookSubscription,
  deleteWebhookSubscription,
  replayWebhookSubscription,
  retryWebhookDelivery,
  saveReturnWebhook,
  updateWebhookSubscription,
} from '../domain/webhooks.ts';
import { builder } from './builder.ts';
import { storeIdOf, hasAnyScope } from './context.ts';
import { keysetConnection } from './keyset.ts';
import type { MutationFieldBuilder } from './node.ts';
import { toPlain } from '../db/reads/plain.ts';

// Writers get the subscription they wrote back; readers see every subscription.
const WEBHOOK_AUDIENCE: readonly Scope[] = ['webhooks_read', 'webhooks_write'];

const DELIVERY_ORDER = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

export const WebhookDeliveryStatus = builder.enumType('WebhookDeliveryStatus', {
  description:
    'State of one delivery. PENDING until the subscriber answers 2xx (DELIVERED) or the 8th attempt fails (DISCARDED); ' +
    'failures (non-2xx, redirects, 10 s timeout, connection errors) are retried after 1 s, 2 s, 4 s ... at most 5 min.',
  values: {
    PENDING: { description: 'Waiting for its first attempt, a retry, or an earlier event of its subject' },
    DELIVERED: { description: 'The subscriber answered 2xx' },
    DISCARDED: {
      description: 'Given up: all 8 attempts failed, or the return a REDO or LOOP payload shows no longer exists; no more attempts are made',
    },
  } as const,
});

export const WebhookPayload = builder.enumType('WebhookPayload', {
  description: 'How the body of each delivery is shaped',
  values: {
    NATIVE: { description: '`{id, topic, createdAt, storeId, subjectId, data}` for any topic' },
    REDO: { description: "The v2.2 reference document's `webhooks.return` event: `{type, at, merchantName, return, order}`" },
    LOOP: { description: "The warehouse platform's return webhook: `{topic: \"return\", trigger, ...}`" },
  } as const,
});

builder.prismaObject('Event', {
  name: 'WebhookEvent',
  description: 'A change the service announced; the body of every delivery of it',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Sent as the Webhook-Id header; the same on every retry' }),
    topic: t.exposeString('topic', {
      nullable: false,
      description: 'What happened: one of the topics webhookTopics lists, or return.backfill for a return a return webhook backfill announced',
    }),
    subjectId: t.exposeString('subjectId', { nullable: false, description: 'The record the event is about' }),
    data: t.expose('data', {
      type: 'JSON',
      nullable: true,
      description: "What the event records about the change, shaped by its topic; the `data` of a NATIVE delivery's body",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the event was recorded, in the same transaction as its change (for return.backfill: when the backfill ran)' }),
  }),
});

builder.prismaObject('DeliveryAttempt', {
  name: 'WebhookDeliveryAttempt',
  description: 'One POST of a delivery to the subscriber and its outcome',
  fields: (t) => ({
    attemptNumber: t.exposeInt('attemptNumber', { nullable: false, description: 'From 1' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: false, description: 'When the attempt started' }),
    durationMs: t.exposeInt('durationMs', { nullable: false, description: 'How long the attempt took, in milliseconds (0 when no request was sent)' }),
    responseStatus: t.exposeInt('responseStatus', { nullable: true, description: 'Null when no response came (refused, timeout, connection error)' }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed; null on success' }),
  }),
});

export const WebhookDelivery = builder.prismaObject('WebhookDelivery', {
  description: 'One event for one subscription; deliveries of one subject are made in the order of their events',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Our delivery id (dlv_)' }),
    event: t.relation('event', { nullable: false, description: 'The event delivered' }),
    status: t.expose('status', { type: WebhookDeliveryStatus, nullable: false, description: 'Where the delivery stands' }),
    attemptCount: t.exposeInt('attemptCount', { nullable: false, description: 'Attempts made so far, 0 to 8' }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null once delivered or discarded',
      resolve: (d) => (d.status === 'PENDING' ? d.nextAttemptAt : null),
    }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the latest attempt failed (e.g. `HTTP 500: ...`, `timed out after 10000 ms`); null before any attempt and after a success' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When it was delivered or discarded' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the delivery was queued' }),
    attempts: t.relation('attempts', { nullable: false, description: 'Every attempt made, in order', query: { orderBy: { attemptNumber: 'asc' } } }),
  }),
});

const WebhookDeliveryConnection = builder.connectionObject({ type: WebhookDelivery, name: 'WebhookDeliveryConnection' });

export const WebhookSubscription = builder.prismaNode('WebhookSubscription', {
  id: { field: 'id', description: 'Our subscription id (whk_)' },
  nullable: true,
  description:
    "A URL that receives the store's events of some topics as webhook deliveries. " +
    "Readable with webhooks_read or webhooks_write; another store's subscription is never found.",
  // node(id:) sees only the caller's store: another store's subscription is simply not found.
  findUnique: (id, ctx) => ({ id, storeId: storeIdOf(ctx) }),
  authScopes: (_subscription, ctx) => hasAnyScope(ctx, WEBHOOK_AUDIENCE),
  fields: (t) => ({
    url: t.exposeString('url', { nullable: false, description: 'Where deliveries are POSTed (https, or http to loopback where allowed)' }),
    topics: t.exposeStringList('topics', {
      nullable: false,
      description: 'Topics whose events it receives (see webhookTopics); a return webhook has return.created and return.updated, and a LOOP one also return_label.created and return_label.updated',
    }),
    enabled: t.exposeBoolean('enabled', { nullable: false, description: 'A disabled subscription gets no new events; its pending deliveries wait' }),
    payload: t.expose('payload', {
      type: WebhookPayload,
      nullable: false,
      description: 'How delivery bodies are shaped: NATIVE unless saved as a return webhook (REDO or LOOP)',
    }),
    externalId: t.exposeString('externalId', { nullable: true, description: "The merchant's own key for a return webhook" }),
    hasSecret: t.boolean({
      nullable: false,
      description: 'Whether deliveries carry `Authorization: Bearer <secret>`; the secret itself is never returned',
      select: { secret: true },
      resolve: (s) => s.secret !== null,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the subscription was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false, description: 'When the subscription last changed' }),
    deliveries: t.relatedConnection(
      'deliveries',
      {
        cursor: 'id',
        nullable: false,
        description: 'Deliveries to this subscription, newest first; finished ones are kept for WEBHOOK_RETENTION_DAYS (30 by default). Needs webhooks_read.',
        authScopes: { scope: 'webhooks_read' },
        args: { status: t.arg({ type: WebhookDeliveryStatus, required: false, description: 'Only deliveries in this state; all when omitted' }) },
        query: (args) => ({ where: args.status ? { status: args.status } : {}, orderBy: DELIVERY_ORDER }),
      },
      WebhookDeliveryConnection,
    ),
  }),
});

const URL_RULE =
  'https, at most 2048 characters, resolving to public addresses only (plain http only to a loopback address, and only when the ' +
  'service runs with WEBHOOKS_ALLOW_LOOPBACK=true)';
const SECRET_RULE = '1 to 512 visible ASCII characters without spaces, sent as `Authorization: Bearer <secret>` with every delivery; never returned';

/** The input of webhookSubscriptionCreate, under its name and under the deprecated createWebhookSubscription's one. */
function webhookSubscriptionCreateInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({
      url: t.string({ required: true, description: `Where deliveries are POSTed: ${URL_RULE}` }),
      secret: t.string({ required: false, description: `${SECRET_RULE}. Without one, deliveries carry no Authorization header` }),
      topics: t.stringList({ required: true, description: `At least one of: ${TOPICS.join(', ')}; a repeated topic counts once` }),
      enabled: t.boolean({ required: false, description: 'Default true; a disabled subscription gets no new events' }),
    }),
  });
}

const WebhookSubscriptionCreateInput = webhookSubscriptionCreateInput('WebhookSubscriptionCreateInput', 'A URL and the topics whose events are delivered to it');
const CreateWebhookSubscriptionInput = webhookSubscriptionCreateInput(
  'CreateWebhookSubscriptionInput',
  'Input of the deprecated createWebhookSubscription; use webhookSubscriptionCreate with WebhookSubscriptionCreateInput (the same fields)',
);

/** The input of webhookSubscriptionUpdate, under its name and under the deprecated updateWebhookSubscription's one. */
function webhookSubscriptionUpdateInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({
      url: t.string({ required: false, description: `A new address: ${URL_RULE}. Pending deliveries go there. Absent or null: unchanged` }),
      secret: t.string({ required: false, description: `A new secret: ${SECRET_RULE}. Absent: unchanged; null removes the secret` }),
      topics: t.stringList({ required: false, description: `Replaces the topics: at least one of ${TOPICS.join(', ')}. Absent or null: unchanged` }),
      enabled: t.boolean({
        required: false,
        description: "false stops new events reaching the subscription (its pending deliveries wait); true resumes. Absent or null: unchanged",
      }),
      externalId: t.string({
        required: false,
        description: "The merchant's own key of the webhook, 1 to 255 characters, unique among the store's webhooks. Absent: unchanged; null removes it",
      }),
    }),
  });
}

const WebhookSubscriptionUpdateInput = webhookSubscriptionUpdateInput(
  'WebhookSubscriptionUpdateInput',
  'The fields of a subscription to change: absent fields stay as they are; `secret: null` and `externalId: null` remove those',
);
const UpdateWebhookSubscriptionInput = webhookSubscriptionUpdateInput(
  'UpdateWebhookSubscriptionInput',
  'Input of the deprecated updateWebhookSubscription; use webhookSubscriptionUpdate with WebhookSubscriptionUpdateInput (the same fields)',
);

const ReturnWebhookPayload = builder.enumType('ReturnWebhookPayload', {
  description: 'How the body of each delivery of a return webhook is shaped; the return is read as it is when the delivery is made',
  values: {
    REDO: { description: "The v2.2 reference document's `webhooks.return` event: `{type, at, merchantName, return, order}`" },
    LOOP: { description: "The warehouse platform's return webhook: `{topic: \"return\", trigger, ...}`" },
  } as const,
});

/** The input of returnWebhookSave, under its name and under the deprecated saveReturnWebhook's one. */
function returnWebhookSaveInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({
      url: t.string({ required: true, description: `Where deliveries are POSTed: ${URL_RULE}` }),
      secret: t.string({ required: false, description: `${SECRET_RULE}. Without one (also on an update), deliveries carry no Authorization header` }),
      payload: t.field({
        type: ReturnWebhookPayload,
        required: true,
        description: "How each delivery's body is shaped: REDO the v2.2 reference document's return event, LOOP the warehouse platform's return webhook",
      }),
      externalId: t.string({
        required: false,
        description: "The merchant's own key, 1 to 255 characters: the store's webhook with this externalId is updated instead of a new one created",
      }),
      backfill: t.boolean({
        required: false,
        description: 'Also announce every return that exists now (one return.backfill event each, oldest first), to this webhook only. Default false',
      }),
    }),
  });
}

const RETURN_WEBHOOK = `A webhook of every return event (${RETURN_WEBHOOK_TOPICS.join(', ')}; a LOOP one also of its label's), shaped as \`payload\` says`;
const ReturnWebhookSaveInput = returnWebhookSaveInput('ReturnWebhookSaveInput', RETURN_WEBHOOK);
const SaveReturnWebhookInput = returnWebhookSaveInput(
  'SaveReturnWebhookInput',
  'Input of the deprecated saveReturnWebhook; use returnWebhookSave with ReturnWebhookSaveInput (the same fields)',
);

const SavedReturnWebhook = builder.objectRef<{ subscription: WebhookSubscriptionRow; created: boolean }>('SavedReturnWebhook').implement({
  description: 'The return webhook as saved, and whether it was new',
  fields: (t) => ({
    subscription: t.field({
      type: WebhookSubscription,
      nullable: false,
      description: 'The subscription behind the return webhook (topics return.created and return.updated; a LOOP one also return_label.created and return_label.updated)',
      resolve: (saved) => toPlain(saved.subscription),
    }),
    created: t.exposeBoolean('created', { nullable: false, description: 'False when the webhook with this externalId was updated' }),
  }),
});

builder.queryFields((t) => ({
  webhookTopics: t.stringList({
    nullable: false,
    description: 'Every topic a subscription can name. Open to any authenticated API client, whatever its scopes.',
    authScopes: { authenticated: true },
    resolve: () => [...TOPICS],
  }),
  webhookSubscription: t.prismaField({
    type: 'WebhookSubscription',
    nullable: true,
    description: 'A webhook subscription of the store by id; null when the store has none with it. Needs webhooks_read.',
    authScopes: { scope: 'webhooks_read' },
    args: { id: t.arg.id({ required: true, description: 'Our subscription id (whk_)' }) },
    resolve: (query, _root, args, ctx) =>
      ctx.reads.webhookSubscription.findFirst({ ...query, where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  webhookSubscriptions: t.connection(
    {
      type: WebhookSubscription,
      nullable: false,
      description: 'Subscriptions of the store matching every filter given, newest first (ties by id). Needs webhooks_read.',
      authScopes: { scope: 'webhooks_read' },
      args: {
        enabled: t.arg.boolean({ required: false, description: 'Only enabled (true) or only disabled (false) subscriptions; both when omitted' }),
        topic: t.arg.string({ required: false, description: 'Only subscriptions that include this topic' }),
        payloads: t.arg({ type: [WebhookPayload], required: false, description: 'Only subscriptions with one of these payload kinds' }),
      },
      resolve: (_root, args, ctx, info) => {
        const storeId = storeIdOf(ctx);
        return keysetConnection({
          cursors: ctx.services.cursors,
          args,
          sort: { field: 'createdAt', kind: 'date', direction: 'desc' },
          scope: 'webhookSubscriptions',
          fetch: ({ where, orderBy, take }) =>
            ctx.reads.webhookSubscription.findMany({
              ...queryFromInfo({ context: ctx, info, typeName: 'WebhookSubscription', paths: [['edges', 'node'], ['nodes']] }),
              where: {
                AND: [
                  where,
                  { storeId },
                  args.enabled != null ? { enabled: args.enabled } : {},
                  args.topic ? { topics: { has: args.topic } } : {},
                args.payloads ? { payload: { in: args.payloads } } : {},
                ],
              },
              orderBy,
              take,
            }),
        });
      },
    },
    { name: 'WebhookSubscriptionConnection' },
    { name: 'WebhookSubscriptionEdge' },
  ),
  webhookDeliveries: t.connection(
    {
      type: WebhookDelivery,
      nullable: false,
      description:
        "Deliveries of one of the store's subscriptions, newest first (ties by id); empty for an unknown subscription. " +
        'Finished deliveries are kept for WEBHOOK_RETENTION_DAYS (30 by default). Needs webhooks_read.',
      authScopes: { scope: 'webhooks_read' },
      args: {
        subscriptionId: t.arg.id({ required: true, description: 'Our subscription id (whk_)' }),
        status: t.arg({ type: WebhookDeliveryStatus, required: false, description: 'Only deliveries in this state; all when omitted' }),
        subjectId: t.arg.string({
          required: false,
          description: "Only deliveries of events about this record (the event's subjectId, e.g. a return's svc_id or an ord_ id)",
        }),
      },
      resolve: (_root, args, ctx, info) =>
      keysetConnection({
        cursors: ctx.services.cursors,
        args,
        sort: { field: 'createdAt', kind: 'date', direction: 'desc' },
        scope: `webhookDeliveries:${args.subscriptionId}`,
        fetch: ({ where, orderBy, take }) =>
          ctx.reads.webhookDelivery.findMany({
            ...queryFromInfo({ context: ctx, info, typeName: 'WebhookDelivery', paths: [['edges', 'node'], ['nodes']] }),
            where: {
              AND: [
                where,
                { subscriptionId: String(args.subscriptionId), subscription: { storeId: storeIdOf(ctx) } },
                args.status ? { status: args.status } : {},
                args.subjectId ? { subjectId: args.subjectId } : {},
              ],
            },
            orderBy,
            take,
          }),
      }),
    },
    WebhookDeliveryConnection,
  ),
}));

const SUBSCRIPTION_ID = "The subscription (whk_); another store's is not found";

/** webhookSubscriptionCreate, and createWebhookSubscription: its deprecated old name (`deprecationReason`). */
function webhookSubscriptionCreateField(t: MutationFieldBuilder, input: typeof WebhookSubscriptionCreateInput, deprecationReason?: string) {
  return t.prismaField({
    type: 'WebhookSubscription',
    nullable: false,
    description:
      'Subscribes a URL to topics: every event of those topics recorded from then on is POSTed to it (body {id, topic, createdAt, ' +
      'storeId, subjectId, data}, header Webhook-Id), in order per subject, retried on failure up to 8 attempts with exponential backoff ' +
      'and then discarded. Answers the subscription (never its secret). Needs webhooks_write. Errors: BAD_USER_INPUT for a URL that is not ' +
      'https or resolves to a non-public address, no topic or an unknown one, or an invalid secret (every issue in extensions.issues; ' +
      'nothing written).',
    deprecationReason,
    authScopes: { scope: 'webhooks_write' },
    args: { input: t.arg({ type: input, required: true, description: 'The URL, its topics, and optionally a secret and whether it starts enabled' }) },
    resolve: async (_query, _root, args, ctx) => toPlain(await createWebhookSubscription(ctx.prisma, storeIdOf(ctx), args.input, ctx.services.webhookAddressPolicy)),
  });
}

/** webhookSubscriptionUpdate, and updateWebhookSubscription: its deprecated old name (`deprecationReason`). */
function webhookSubscriptionUpdateField(t: MutationFieldBuilder, input: typeof WebhookSubscriptionUpdateInput, deprecationReason?: string) {
  return t.prismaField({
    type: 'WebhookSubscription',
    nullable: false,
    description:
      "Changes the fields given of one of the store's subscriptions: pending deliveries go to a new URL, a disabled subscription's " +
      'deliveries wait until it is enabled again. Needs webhooks_write. Errors: NOT_FOUND for an unknown id; BAD_USER_INPUT for an ' +
      'invalid field, as at creation (nothing written); CONFLICT when another webhook of the store has this externalId.',
    deprecationReason,
    authScopes: { scope: 'webhooks_write' },
    args: {
      id: t.arg.id({ required: true, description: SUBSCRIPTION_ID }),
      input: t.arg({ type: input, required: true, description: 'The fields to change; absent ones stay as they are' }),
    },
    resolve: async (_query, _root, args, ctx) => toPlain(await updateWebhookSubscription(ctx.prisma, storeIdOf(ctx), String(args.id), args.input, ctx.services.webhookAddressPolicy)),
  });
}

/** returnWebhookSave, and saveReturnWebhook: its deprecated old name (`deprecationReason`). */
function returnWebhookSaveField(t: MutationFieldBuilder, input: typeof ReturnWebhookSaveInput, deprecationReason?: string) {
  return t.field({
    type: SavedReturnWebhook,
    nullable: false,
    description:
      `Creates a return webhook (the v2.2 reference document's webhooks): a subscription to ${RETURN_WEBHOOK_TOPICS.join(' and ')} ` +
      '(a LOOP one also to return_label.created and return_label.updated, the platform\'s label webhook) whose ' +
      'deliveries are shaped as payload says; or, when the store has a webhook with the externalId given, updates its url, secret and ' +
      'payload instead (created: false). With backfill, every return that exists now is announced to it too, in the same transaction. ' +
      'Needs webhooks_write. Errors: BAD_USER_INPUT for an invalid url, secret or externalId (nothing written).',
    deprecationReason,
    authScopes: { scope: 'webhooks_write' },
    args: { input: t.arg({ type: input, required: true, description: 'The webhook: url, payload kind, and optionally secret, externalId and backfill' }) },
    resolve: (_root, args, ctx) => saveReturnWebhook(ctx.prisma, storeIdOf(ctx), args.input, ctx.services.webhookAddressPolicy),
  });
}

/** webhookSubscriptionReplay, and replayWebhookSubscription: its deprecated old name (`deprecationReason`). */
function webhookSubscriptionReplayField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.int({
    nullable: false,
    description:
      'Delivers again, to this subscription only, every retained event of its topics created at or after `since` (events are kept ' +
      'WEBHOOK_RETENTION_DAYS, by default 30 days), oldest first, after whatever it still has pending; answers how many deliveries were ' +
      'queued. Needs webhooks_write. Errors: NOT_FOUND for an unknown id; UNPROCESSABLE while the subscription is disabled (its ' +
      'deliveries wait until it is enabled, so nothing is queued).',
    deprecationReason,
    authScopes: { scope: 'webhooks_write' },
    args: {
      id: t.arg.id({ required: true, description: SUBSCRIPTION_ID }),
      since: t.arg({ type: 'DateTime', required: true, description: 'ISO 8601 date-time: events created at or after it are delivered again' }),
    },
    resolve: (_root, { id, since }, ctx) => replayWebhookSubscription(ctx.prisma, storeIdOf(ctx), String(id), since),
  });
}

/** webhookSubscriptionDelete, and deleteWebhookSubscription: its deprecated old name (`deprecationReason`). */
function webhookSubscriptionDeleteField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.id({
    nullable: false,
    description:
      "Deletes one of the store's subscriptions with its pending and past deliveries; answers the deleted id. Needs webhooks_write. " +
      'Errors: NOT_FOUND for an unknown id.',
    deprecationReason,
    authScopes: { scope: 'webhooks_write' },
    args: { id: t.arg.id({ required: true, description: SUBSCRIPTION_ID }) },
    resolve: async (_root, { id }, ctx) => {
      await deleteWebhookSubscription(ctx.prisma, storeIdOf(ctx), String(id));
      return String(id);
    },
  });
}

builder.mutationField('webhookDeliveryRetry', (t) =>
  t.prismaField({
    type: 'WebhookDelivery',
    nullable: false,
    description:
      'Delivers the event of a delivery that failed for good (DISCARDED) again, to the same subscription: answers the new delivery ' +
      '(PENDING), queued after whatever the subscription still has pending. Needs webhooks_write. Errors: NOT_FOUND for an unknown ' +
      "delivery (or another store's); UNPROCESSABLE when the delivery is not DISCARDED or its subscription is disabled.",
    authScopes: { scope: 'webhooks_write' },
    args: { id: t.arg.id({ required: true, description: 'The delivery (dlv_) that failed' }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await retryWebhookDelivery(ctx.prisma, storeIdOf(ctx), String(args.id));
      return ctx.reads.webhookDelivery.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

builder.mutationFields((t) => ({
  webhookSubscriptionCreate: webhookSubscriptionCreateField(t, WebhookSubscriptionCreateInput),
  createWebhookSubscription: webhookSubscriptionCreateField(t, CreateWebhookSubscriptionInput, 'Use webhookSubscriptionCreate'),
  webhookSubscriptionUpdate: webhookSubscriptionUpdateField(t, WebhookSubscriptionUpdateInput),
  updateWebhookSubscription: webhookSubscriptionUpdateField(t, UpdateWebhookSubscriptionInput, 'Use webhookSubscriptionUpdate'),
  returnWebhookSave: returnWebhookSaveField(t, ReturnWebhookSaveInput),
  saveReturnWebhook: returnWebhookSaveField(t, SaveReturnWebhookInput, 'Use returnWebhookSave'),
  webhookSubscriptionReplay: webhookSubscriptionReplayField(t),
  replayWebhookSubscription: webhookSubscriptionReplayField(t, 'Use webhookSubscriptionReplay'),
  webhookSubscriptionDelete: webhookSubscriptionDeleteField(t),
  deleteWebhookSubscription: webhookSubscriptionDeleteField(t, 'Use webhookSubscriptionDelete'),
}));

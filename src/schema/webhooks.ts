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
  saveReturnWebhook,
  updateWebhookSubscription,
} from '../domain/webhooks.ts';
import { builder } from './builder.ts';
import { storeIdOf, hasAnyScope } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { toPlain } from '../db/reads/plain.ts';

// Writers get the subscription they wrote back; readers see every subscription.
const WEBHOOK_AUDIENCE: readonly Scope[] = ['webhooks_read', 'webhooks_write'];

const DELIVERY_ORDER = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

export const WebhookDeliveryStatus = builder.enumType('WebhookDeliveryStatus', {
  values: {
    PENDING: { description: 'Waiting for its first attempt, a retry, or an earlier event of its subject' },
    DELIVERED: { description: 'The subscriber answered 2xx' },
    DISCARDED: { description: 'Every attempt failed; no more attempts are made' },
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
    topic: t.exposeString('topic', { nullable: false }),
    subjectId: t.exposeString('subjectId', { nullable: false, description: 'The record the event is about' }),
    data: t.expose('data', { type: 'JSON', nullable: true, description: 'The subject as it was after the change' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false }),
  }),
});

builder.prismaObject('DeliveryAttempt', {
  name: 'WebhookDeliveryAttempt',
  fields: (t) => ({
    attemptNumber: t.exposeInt('attemptNumber', { nullable: false, description: 'From 1' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: false }),
    durationMs: t.exposeInt('durationMs', { nullable: false }),
    responseStatus: t.exposeInt('responseStatus', { nullable: true, description: 'Null when no response came (refused, timeout, connection error)' }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed; null on success' }),
  }),
});

export const WebhookDelivery = builder.prismaObject('WebhookDelivery', {
  description: 'One event for one subscription',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    event: t.relation('event', { nullable: false }),
    status: t.expose('status', { type: WebhookDeliveryStatus, nullable: false }),
    attemptCount: t.exposeInt('attemptCount', { nullable: false }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null once delivered or discarded',
      resolve: (d) => (d.status === 'PENDING' ? d.nextAttemptAt : null),
    }),
    lastError: t.exposeString('lastError', { nullable: true }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When it was delivered or discarded' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false }),
    attempts: t.relation('attempts', { nullable: false, query: { orderBy: { attemptNumber: 'asc' } } }),
  }),
});

const WebhookDeliveryConnection = builder.connectionObject({ type: WebhookDelivery, name: 'WebhookDeliveryConnection' });

export const WebhookSubscription = builder.prismaNode('WebhookSubscription', {
  id: { field: 'id' },
  nullable: true,
  // node(id:) sees only the caller's store: another store's subscription is simply not found.
  findUnique: (id, ctx) => ({ id, storeId: storeIdOf(ctx) }),
  authScopes: (_subscription, ctx) => hasAnyScope(ctx, WEBHOOK_AUDIENCE),
  fields: (t) => ({
    url: t.exposeString('url', { nullable: false }),
    topics: t.exposeStringList('topics', { nullable: false }),
    enabled: t.exposeBoolean('enabled', { nullable: false, description: 'A disabled subscription gets no new events; its pending deliveries wait' }),
    payload: t.expose('payload', { type: WebhookPayload, nullable: false }),
    externalId: t.exposeString('externalId', { nullable: true, description: "The merchant's own key for a return webhook" }),
    hasSecret: t.boolean({
      nullable: false,
      description: 'Whether deliveries carry `Authorization: Bearer <secret>`; the secret itself is never returned',
      select: { secret: true },
      resolve: (s) => s.secret !== null,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false }),
    deliveries: t.relatedConnection(
      'deliveries',
      {
        cursor: 'id',
        nullable: false,
        description: 'Deliveries to this subscription, newest first',
        authScopes: { scope: 'webhooks_read' },
        args: { status: t.arg({ type: WebhookDeliveryStatus, required: false }) },
        query: (args) => ({ where: args.status ? { status: args.status } : {}, orderBy: DELIVERY_ORDER }),
      },
      WebhookDeliveryConnection,
    ),
  }),
});

const CreateWebhookSubscriptionInput = builder.inputType('CreateWebhookSubscriptionInput', {
  fields: (t) => ({
    url: t.string({ required: true, description: 'https; plain http only to loopback when the service allows loopback' }),
    secret: t.string({ required: false, description: 'Sent as `Authorization: Bearer <secret>`; never returned' }),
    topics: t.stringList({ required: true, description: `At least one of: ${TOPICS.join(', ')}` }),
    enabled: t.boolean({ required: false, description: 'Default true' }),
  }),
});

const UpdateWebhookSubscriptionInput = builder.inputType('UpdateWebhookSubscriptionInput', {
  description: 'Absent fields stay as they are; `secret: null` removes the secret',
  fields: (t) => ({
    url: t.string({ required: false }),
    secret: t.string({ required: false }),
    topics: t.stringList({ required: false }),
    enabled: t.boolean({ required: false }),
    externalId: t.string({ required: false, description: '`null` removes it' }),
  }),
});

const ReturnWebhookPayload = builder.enumType('ReturnWebhookPayload', { values: ['REDO', 'LOOP'] as const });

const SaveReturnWebhookInput = builder.inputType('SaveReturnWebhookInput', {
  description: `A webhook of every return event (${RETURN_WEBHOOK_TOPICS.join(', ')}), shaped as \`payload\` says`,
  fields: (t) => ({
    url: t.string({ required: true, description: 'https; plain http only to loopback when the service allows loopback' }),
    secret: t.string({ required: false, description: 'Sent as `Authorization: Bearer <secret>`; never returned' }),
    payload: t.field({ type: ReturnWebhookPayload, required: true }),
    externalId: t.string({ required: false, description: 'The store\'s webhook with this externalId is updated instead of a new one created' }),
    backfill: t.boolean({ required: false, description: 'Also announce every return that exists now, to this webhook only' }),
  }),
});

const SavedReturnWebhook = builder.objectRef<{ subscription: WebhookSubscriptionRow; created: boolean }>('SavedReturnWebhook').implement({
  fields: (t) => ({
    subscription: t.field({ type: WebhookSubscription, nullable: false, resolve: (saved) => toPlain(saved.subscription) }),
    created: t.exposeBoolean('created', { nullable: false, description: 'False when the webhook with this externalId was updated' }),
  }),
});

builder.queryFields((t) => ({
  webhookTopics: t.stringList({
    nullable: false,
    description: 'Every topic a subscription can name',
    authScopes: { authenticated: true },
    resolve: () => [...TOPICS],
  }),
  webhookSubscription: t.prismaField({
    type: 'WebhookSubscription',
    nullable: true,
    description: 'Null when the store has no subscription with this id',
    authScopes: { scope: 'webhooks_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) =>
      ctx.reads.webhookSubscription.findFirst({ ...query, where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  webhookSubscriptions: t.connection(
    {
      type: WebhookSubscription,
      nullable: false,
      description: 'Subscriptions of the store, newest first',
      authScopes: { scope: 'webhooks_read' },
      args: {
        enabled: t.arg.boolean({ required: false }),
        topic: t.arg.string({ required: false, description: 'Only subscriptions that include this topic' }),
        payloads: t.arg({ type: [WebhookPayload], required: false, description: 'Only subscriptions with one of these payload kinds' }),
      },
      resolve: (_root, args, ctx, info) => {
        const storeId = storeIdOf(ctx);
        return keysetConnection({
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
      description: "Deliveries of one of the store's subscriptions, newest first (empty for an unknown subscription)",
      authScopes: { scope: 'webhooks_read' },
      args: {
        subscriptionId: t.arg.id({ required: true }),
        status: t.arg({ type: WebhookDeliveryStatus, required: false }),
        subjectId: t.arg.string({ required: false }),
      },
      resolve: (_root, args, ctx, info) =>
      keysetConnection({
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

builder.mutationFields((t) => ({
  createWebhookSubscription: t.prismaField({
    type: 'WebhookSubscription',
    nullable: false,
    description: 'Subscribes a URL to topics; the URL must resolve to public addresses only',
    authScopes: { scope: 'webhooks_write' },
    args: { input: t.arg({ type: CreateWebhookSubscriptionInput, required: true }) },
    resolve: async (_query, _root, { input }, ctx) => toPlain(await createWebhookSubscription(ctx.prisma, storeIdOf(ctx), input)),
  }),
  updateWebhookSubscription: t.prismaField({
    type: 'WebhookSubscription',
    nullable: false,
    authScopes: { scope: 'webhooks_write' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWebhookSubscriptionInput, required: true }) },
    resolve: async (_query, _root, { id, input }, ctx) => toPlain(await updateWebhookSubscription(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  saveReturnWebhook: t.field({
    type: SavedReturnWebhook,
    nullable: false,
    description: 'Creates a return webhook, or updates the one with the same externalId',
    authScopes: { scope: 'webhooks_write' },
    args: { input: t.arg({ type: SaveReturnWebhookInput, required: true }) },
    resolve: (_root, { input }, ctx) => saveReturnWebhook(ctx.prisma, storeIdOf(ctx), input),
  }),
  replayWebhookSubscription: t.int({
    nullable: false,
    description: 'Delivers again every retained event of its topics since `since`; answers how many deliveries were queued',
    authScopes: { scope: 'webhooks_write' },
    args: { id: t.arg.id({ required: true }), since: t.arg({ type: 'DateTime', required: true }) },
    resolve: (_root, { id, since }, ctx) => replayWebhookSubscription(ctx.prisma, storeIdOf(ctx), String(id), since),
  }),
  deleteWebhookSubscription: t.id({
    nullable: false,
    description: 'Deletes the subscription and its deliveries; answers the deleted id',
    authScopes: { scope: 'webhooks_write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await deleteWebhookSubscription(ctx.prisma, storeIdOf(ctx), String(id));
      return String(id);
    },
  }),
}));

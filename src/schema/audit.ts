// The audit trail in v3: `auditEntries`, the store's entries newest first, filtered by
// object (with its parts), actor, operation and time, read with audit_read. The entries are
// written by the database (src/domain/audit.ts); what the schema adds is the name of the
// operation that wrote them: each root mutation field names itself in the request scope as
// it starts, whichever door runs it; and it hides a customer's, an order's or a return's
// personal values (the columns erasure treats, domain/privacy.ts) from a caller without that
// record's read scope, which would otherwise read through the trail what the record's own
// queries refuse it.
import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import { AUDITED_KINDS, auditEntryWhere, type AuditActorKind as ActorKind } from '../domain/audit.ts';
import { personalColumnsByTable } from '../domain/privacy/personalData.ts';
import type { Scope } from '../auth/scopes.ts';
import { nameOperation } from '../observability/requestScope.ts';
import { builder } from './builder.ts';
import { storeIdOf, type GraphQLContext } from './context.ts';
import { keysetConnection } from './keyset.ts';

/** `OrderLineItem` -> `ORDER_LINE_ITEM`. */
const enumName = (model: string) => model.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

export const AuditObjectKind = builder.enumType('AuditObjectKind', {
  description: "The kind of record an audit entry is about: one per audited table, named after it (the record's GraphQL type where it has one)",
  values: Object.fromEntries(AUDITED_KINDS.map((kind) => [enumName(kind), { value: kind, description: `A record of the ${kind} table` }])),
});

const ACTOR_KINDS: Record<ActorKind, string> = {
  API_CLIENT: 'An API client (id apc_..., its name)',
  MERCHANT_USER: 'A merchant user signed in to the dashboard (its id, its e-mail)',
  SHOPPER: "A shopper on the returns portal (a session id that names one browser, shp_...)",
  JOB: 'Background work of the service (its name: webhook-dispatcher, retention, demo-seed, cli)',
  SYSTEM: 'No request or job of the service: a change made directly in the database (the database role) or by code outside any request',
};

export const AuditActorKind = builder.enumType('AuditActorKind', {
  description: 'Who made a change',
  values: Object.fromEntries(Object.entries(ACTOR_KINDS).map(([kind, description]) => [kind, { value: kind as ActorKind, description }])),
});

export const AuditAction = builder.enumType('AuditAction', {
  description: 'What a change did to its record',
  values: {
    INSERT: { description: 'Created it; `changes` holds its values (`after` only)' },
    UPDATE: { description: 'Changed it; `changes` holds the columns that changed, before and after' },
    DELETE: { description: 'Deleted it; `changes` holds its last values (`before` only)' },
  },
});

interface AuditObjectShape {
  kind: string;
  id: string;
}

const AuditObject = builder.objectRef<AuditObjectShape>('AuditObject').implement({
  description: 'A record named by an audit entry',
  fields: (t) => ({
    kind: t.field({ type: AuditObjectKind, nullable: false, description: 'Its kind (table)', resolve: (o) => o.kind as (typeof AUDITED_KINDS)[number] }),
    id: t.exposeString('id', {
      nullable: false,
      description: "Its id (ord_..., a return's svc_id, ...); for a record keyed by several columns their values joined by ':' (a custom field value: customer id:declaration id), for a return tag its numeric id",
    }),
  }),
});

interface AuditActorShape {
  kind: ActorKind;
  id: string | null;
  name: string | null;
}

const AuditActor = builder.objectRef<AuditActorShape>('AuditActor').implement({
  description: 'Who made a change',
  fields: (t) => ({
    kind: t.field({ type: AuditActorKind, nullable: false, description: 'What kind of actor', resolve: (a) => a.kind }),
    id: t.exposeString('id', { nullable: true, description: "The API client's or merchant user's id, the shopper's session id, the job's name or the database role" }),
    name: t.exposeString('name', { nullable: true, description: "The API client's name or the merchant user's e-mail, as they were at the time; null for the other kinds" }),
  }),
});

interface AuditChangeShape {
  field: string;
  before: unknown;
  after: unknown;
  hidden: boolean;
}

/** What a value the caller may not read shows instead (as the trigger shows a secret). */
const HIDDEN = '[hidden]';

/** The records whose personal values take their read scope: an entry of one, or of one of its parts (a return's note), shows them only to a holder of it. */
const READ_SCOPE: Record<string, Scope> = { Customer: 'customers_read', Order: 'orders_read', Return: 'returns_read' };

const PERSONAL_COLUMNS = new Map(Object.entries(personalColumnsByTable()).map(([table, columns]) => [table, new Set(columns)]));

/** The personal columns of the entry's record that the caller may not read: none when it holds the read scope of the record (or of the record it is a part of). */
function hiddenColumns(entry: { objectKind: string; parentKind: string | null }, ctx: GraphQLContext): ReadonlySet<string> {
  const scope = READ_SCOPE[entry.parentKind ?? entry.objectKind];
  if (scope === undefined || ctx.auth?.scopes.has(scope)) return new Set();
  return PERSONAL_COLUMNS.get(entry.objectKind) ?? new Set();
}

const AuditChange = builder.objectRef<AuditChangeShape>('AuditChange').implement({
  description: 'One column of a record as a change left it',
  fields: (t) => ({
    field: t.exposeString('field', { nullable: false, description: 'The column (the field of the record in the database, e.g. status, totalPrice, customerEmail)' }),
    before: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'Its value before the change; null when it was null, and on an INSERT. Amounts are exact decimals, times UTC without a zone; a secret is "[hidden]", ' +
        'and so is a personal value the caller may not read (see `hidden`)',
      resolve: (c) => c.before ?? null,
    }),
    after: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its value after the change; null when it became null, and on a DELETE; "[hidden]" as `before` is',
      resolve: (c) => c.after ?? null,
    }),
    hidden: t.exposeBoolean('hidden', {
      nullable: false,
      description:
        "True when the column holds personal data (an e-mail, a name, a phone number, an address, a shopper's words) of a customer, an order or a return, " +
        'or of one of their parts, and the caller lacks that record\'s read scope (customers_read, orders_read, returns_read): its values, but a null, ' +
        'are then "[hidden]", as the record\'s own queries would refuse them',
    }),
  }),
});

type StoredChanges = Record<string, { before?: unknown; after?: unknown }>;

export const AuditEntry = builder.prismaObject('AuditEntry', {
  description:
    "One change of one record of the store's data, written by the database in the transaction of the change: who made it, through which door " +
    'and operation, in which request, and the values of the columns it changed before and after',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Its position in the trail: a later entry has a larger id' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: false, description: 'When the transaction that made the change began' }),
    actor: t.field({
      type: AuditActor,
      nullable: false,
      description: 'Who made the change',
      resolve: (e) => ({ kind: e.actorKind, id: e.actorId, name: e.actorName }),
    }),
    door: t.exposeString('door', {
      nullable: false,
      description: 'Where the change came in: v3, sofa (/v3/rest), rest (/v2.2), compat (warehouse), web (dashboard or portal), job, or database',
    }),
    operation: t.exposeString('operation', { nullable: true, description: 'The v3 mutation that made it (every door runs one, e.g. returnProcess); null for a job or the database' }),
    requestId: t.exposeString('requestId', { nullable: true, description: "The request's id: its x-request-id header, in its log lines and trace; null for a job or the database" }),
    object: t.field({ type: AuditObject, nullable: false, description: 'The record changed', resolve: (e) => ({ kind: e.objectKind, id: e.objectId }) }),
    parent: t.field({
      type: AuditObject,
      nullable: true,
      description: "The record it is a part of, whose history includes it (an order's line item, a return's item, a product's stock level); null for a record of its own",
      resolve: (e) => (e.parentKind && e.parentId ? { kind: e.parentKind, id: e.parentId } : null),
    }),
    action: t.expose('action', { type: AuditAction, nullable: false, description: 'Whether the record was created, changed or deleted' }),
    changes: t.field({
      type: [AuditChange],
      nullable: false,
      description:
        'The columns the change set, each with its value before and after (updatedAt and the search document are left out). ' +
        "A customer's, an order's or a return's personal values show only to a caller that also holds that record's read scope (see AuditChange.hidden)",
      resolve: (e, _args, ctx) => {
        const hidden = hiddenColumns(e, ctx);
        const shown = (value: unknown) => (value === null || value === undefined ? null : HIDDEN);
        return Object.entries(e.changes as StoredChanges).map(([field, value]) =>
          hidden.has(field)
            ? { field, before: shown(value.before), after: shown(value.after), hidden: true }
            : { field, before: value.before, after: value.after, hidden: false },
        );
      },
    }),
  }),
});

const AuditEntryConnection = builder.connectionObject({ type: AuditEntry, name: 'AuditEntryConnection' });

const AuditObjectFilter = builder.inputType('AuditObjectFilter', {
  description: 'A record whose history to read',
  fields: (t) => ({
    kind: t.field({ type: AuditObjectKind, required: true, description: 'Its kind' }),
    id: t.string({ required: true, description: 'Its id, as AuditObject.id names it' }),
  }),
});

const AuditActorFilter = builder.inputType('AuditActorFilter', {
  description: 'An actor whose changes to read',
  fields: (t) => ({
    kind: t.field({ type: AuditActorKind, required: true, description: 'The kind of actor' }),
    id: t.string({ required: false, description: 'The actor, as AuditActor.id names it; every actor of the kind when omitted' }),
  }),
});

builder.queryField('auditEntries', (t) =>
  t.connection(
    {
      type: AuditEntry,
      nullable: false,
      description:
        "The store's audit trail, newest first (by id): every change of its data by any door, job or direct SQL, kept for AUDIT_RETENTION_DAYS " +
        '(365 by default). Pages are stable while changes are recorded. Needs audit_read; the personal values of customers, orders and returns ' +
        'also need customers_read, orders_read or returns_read (AuditChange.hidden).',
      authScopes: { scope: 'audit_read' },
      args: {
        object: t.arg({
          type: AuditObjectFilter,
          required: false,
          description: "Only the history of this record: its own entries and those of its parts (an order's line items, a return's items and notes)",
        }),
        actor: t.arg({ type: AuditActorFilter, required: false, description: 'Only the changes of this actor (or of every actor of its kind)' }),
        operation: t.arg.string({ required: false, description: 'Only the changes made by this mutation (e.g. returnProcess)' }),
        occurredAtMin: t.arg({ type: 'DateTime', required: false, description: 'Only changes at or after this time (inclusive, ISO 8601)' }),
        occurredAtMax: t.arg({ type: 'DateTime', required: false, description: 'Only changes before this time (exclusive, ISO 8601)' }),
      },
      resolve: (_root, args, ctx) => {
        const filters = auditEntryWhere(storeIdOf(ctx), {
          object: args.object ?? undefined,
          actor: args.actor ? { kind: args.actor.kind, id: args.actor.id } : undefined,
          operation: args.operation ?? undefined,
          occurredAtMin: args.occurredAtMin ?? undefined,
          occurredAtMax: args.occurredAtMax ?? undefined,
        });
        return keysetConnection({
          cursors: ctx.services.cursors,
          args,
          sort: { field: 'id', kind: 'number', direction: 'desc' },
          scope: 'auditEntries',
          // An entry has no relations: its whole row is what any selection reads.
          fetch: ({ where, orderBy, take }) => ctx.reads.auditEntry.findMany({ where: { AND: [where, filters] }, orderBy, take }),
        });
      },
    },
    AuditEntryConnection,
  ),
);

/** Wraps each root mutation field so that it names itself (`nameOperation`) before it writes anything. */
export function nameMutations(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const resolve = field.resolve ?? defaultFieldResolver;
    const name = field.name;
    field.resolve = (parent, args, ctx, info) => {
      nameOperation(name);
      return resolve(parent, args, ctx, info);
    };
  }
  return schema;
}

// What the inventory types share: `node(id:)` / `nodes(ids:)` loading that keeps
// each type's read scope and the caller's visibility, the sort keys and the
// selection of root keyset connections.
import { parsePrismaCursor, queryFromInfo } from '@pothos/plugin-prisma';
import type { ObjectRef } from '@pothos/core';
import {
  defaultFieldResolver,
  getNamedType,
  GraphQLError,
  isInterfaceType,
  isObjectType,
  Kind,
  valueFromAST,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionNode,
} from 'graphql';
import type { Scope } from '../auth/scopes.ts';
import { builder } from './builder.ts';
import { checkConnectionArgs } from './connectionArgs.ts';
import type { GraphQLContext } from './context.ts';
import { withCursorColumns, type KeysetSort, type PageQuery, type SortValueKind } from './keyset.ts';
import { idDescriptionOf } from './nodeTypes.ts';

export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/**
 * The `t` of `builder.mutationField(s)`. A mutation renamed to its noun-first name is built by
 * one function taking it, called for the new name and for the deprecated old one (`Use <new>`).
 */
export type MutationFieldBuilder = PothosSchemaTypes.MutationFieldBuilder<BuilderTypes, BuilderTypes['Root']>;

function hasScope(ctx: GraphQLContext, scope: Scope): boolean {
  return ctx.auth?.scopes.has(scope) ?? false;
}

/** The same refusal plugin-scope-auth gives a field, for loads that run outside a field's scopes. */
function requireScope(ctx: GraphQLContext, scope: Scope, what: string): void {
  if (!hasScope(ctx, scope)) {
    throw new GraphQLError(`Not authorized to read ${what}: the ${scope} scope is required`, { extensions: { code: 'FORBIDDEN' } });
  }
}

/** The extensions of a connection field built with plugin-prisma's connection helpers: it pages with plugin-prisma cursors. */
export const PRISMA_CURSORS = { prismaCursors: true } as const;

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

function checkNestedField(field: GraphQLField<unknown, unknown>, node: FieldNode, info: GraphQLResolveInfo, ctx: GraphQLContext) {
  const args: Record<string, unknown> = {};
  for (const argument of node.arguments ?? []) {
    const definition = field.args.find((a) => a.name === argument.name.value);
    if (definition && ['first', 'last', 'before', 'after'].includes(definition.name)) {
      args[definition.name] = valueFromAST(argument.value, definition.type, info.variableValues);
    }
  }
  if (Object.keys(args).length === 0) return;
  checkConnectionArgs(args, ctx.maxPageSize);
  // A relation connection (plugin-prisma's relatedConnection, or one built with its connection helpers and
  // marked PRISMA_CURSORS) pages with plugin-prisma cursors; the others check their own.
  if (!field.extensions?.pothosPrismaRelationField && !field.extensions?.prismaCursors) return;
  for (const cursor of [args.before, args.after]) {
    if (cursor === undefined || cursor === null) continue;
    try {
      parsePrismaCursor(cursor);
    } catch {
      throw badInput('invalid cursor: pass back a cursor exactly as it was returned');
    }
  }
}

/**
 * Applies the connection argument rules to every connection selected below the
 * field `info` resolves. plugin-prisma plans nested connections into the parent's
 * query, so their arguments are read before those fields resolve; a bad one must
 * fail as BAD_USER_INPUT there rather than as an internal error of the planner.
 */
export function checkNestedConnectionArgs(ctx: GraphQLContext, info: GraphQLResolveInfo): void {
  const visit = (type: GraphQLNamedType | undefined | null, selections: readonly SelectionNode[]) => {
    if (!type) return;
    for (const selection of selections) {
      if (selection.kind === Kind.FIELD) {
        if (!isObjectType(type) && !isInterfaceType(type)) continue;
        const field = type.getFields()[selection.name.value];
        if (!field) continue;
        checkNestedField(field, selection, info, ctx);
        if (selection.selectionSet) visit(getNamedType(field.type), selection.selectionSet.selections);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const target = selection.typeCondition ? info.schema.getType(selection.typeCondition.name.value) : type;
        visit(target, selection.selectionSet.selections);
      } else {
        const fragment = info.fragments[selection.name.value];
        if (fragment) visit(info.schema.getType(fragment.typeCondition.name.value), fragment.selectionSet.selections);
      }
    }
  };
  for (const node of info.fieldNodes) {
    if (node.selectionSet) visit(getNamedType(info.returnType), node.selectionSet.selections);
  }
}

/**
 * Every mutation checks the connection arguments of its payload selection before it
 * runs: a bad nested cursor found after the write would refuse a request that had
 * already written.
 */
export function checkPayloadsBeforeWriting(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (parent, args, ctx: GraphQLContext, info) => {
      checkNestedConnectionArgs(ctx, info);
      return resolve(parent, args, ctx, info);
    };
  }
  return schema;
}

/** The prisma query for the object the field `info` resolves (root lookups). */
export function fieldQuery(ctx: GraphQLContext, info: GraphQLResolveInfo, typeName: string): Record<string, unknown> {
  checkNestedConnectionArgs(ctx, info);
  return queryFromInfo({ context: ctx, info, typeName }) as Record<string, unknown>;
}

/**
 * Makes a type a Node. `node(id:)` and `nodes(ids:)` bypass the root fields, so the
 * loader itself demands the type's read scope and loads only what the caller's
 * store may see (`load` filters by store, and loads the selection below the node
 * with it through `fieldQuery`).
 *
 * The `id` field selects its column (plugin-prisma plans it like any field's `select`), so a
 * prisma type in select mode may leave its id out of its own select (`id: false`) and load it
 * only where the id is asked for: every row of a type whose select keeps it, or that is in
 * include mode, has it anyway.
 */
export function registerNode<Shape extends object>(
  ref: ObjectRef<BuilderTypes, Shape>,
  options: {
    scope: Scope;
    /** Loads the row if the caller's store may see it; prisma types select with `fieldQuery`. */
    load: (id: string, ctx: GraphQLContext, info: GraphQLResolveInfo) => Promise<Shape | null>;
    /** Description of the type's `id` field (its prefix, what `node(id:)` needs). */
    idDescription?: string;
  },
): void {
  builder.nodeRef<Shape, string, typeof ref>(ref, {
    id: {
      // The row carries its id wherever this field is selected: the field's select loads it.
      resolve: (row) => (row as Shape & { id: string }).id,
      description: options.idDescription ?? idDescriptionOf(ref.name, options.scope),
      extensions: { pothosPrismaSelect: { id: true } },
    },
    loadWithoutCache: (id, ctx, info) => {
      requireScope(ctx, options.scope, ref.name);
      return options.load(String(id), ctx, info);
    },
  });
}

/**
 * Makes every node's `id` resolve synchronously. plugin-relay runs each `id` resolver inside an
 * async function, so every node of a response became a promise and graphql-js completed all of
 * its fields on the slow asynchronous path (a REST returns page: ~7% of its time). Every node
 * type takes its id from its row's `id` (prismaNode with `field: 'id'`, registerNode above) and
 * global ids are those ids unchanged (builder.ts), so the id is read from the row.
 */
export function resolveNodeIdsSynchronously(schema: GraphQLSchema): GraphQLSchema {
  const node = schema.getType('Node');
  if (!isInterfaceType(node)) throw new Error('the schema has no Node interface');
  for (const type of schema.getPossibleTypes(node)) {
    type.getFields().id.resolve = (row: { id: string }) => row.id;
  }
  return schema;
}

/** The prisma query for the nodes a root keyset connection returns, however the client selected them, with their cursor's columns. */
export function connectionNodeQuery(ctx: GraphQLContext, info: GraphQLResolveInfo, typeName: string, cursorColumns: PageQuery['cursorColumns']): Record<string, unknown> {
  checkNestedConnectionArgs(ctx, info);
  return withCursorColumns(queryFromInfo({ context: ctx, info, typeName, paths: [['nodes'], ['edges', 'node']] }) as Record<string, unknown>, cursorColumns);
}

export interface SortKeyDefinition {
  field: string;
  kind: SortValueKind;
  nullable?: boolean;
}

/** The keyset sort of a sort key: newest (largest) first, `reverse` flips, nulls last. */
export function keysetSortOf(key: SortKeyDefinition, reverse: boolean | null | undefined): KeysetSort {
  return { field: key.field, kind: key.kind, nullable: key.nullable, direction: reverse ? 'asc' : 'desc' };
}

/** Inclusive lower and exclusive upper bound of a timestamp filter. */
export function timeRange(min: Date | null | undefined, max: Date | null | undefined): { gte?: Date; lt?: Date } | undefined {
  if (!min && !max) return undefined;
  return { ...(min ? { gte: min } : {}), ...(max ? { lt: max } : {}) };
}

// The one Pothos builder of the service: plugins, scalars, scope rules, node ids.
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import { GraphQLError } from 'graphql';
import type PrismaTypes from '../generated/pothos-prisma-types.ts';
import { getDatamodel } from '../generated/pothos-prisma-types.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Plain } from '../db/reads/plain.ts';
import type { Scope } from '../auth/scopes.ts';
import { kindOfId } from '../domain/ids.ts';
import type { GraphQLContext } from './context.ts';
import { typenameForIdKind } from './nodeTypes.ts';
import { DEFAULT_PAGE_SIZE } from './connectionArgs.ts';

/**
 * The models as resolvers see them: rows and relations as `ctx.reads` answers them (timestamps
 * and amounts as exact text), which is also what plugin-prisma loads through.
 */
type PlainPrismaTypes = {
  [M in keyof PrismaTypes]: Omit<PrismaTypes[M], 'Shape' | 'Relations'> & {
    Shape: Plain<PrismaTypes[M]['Shape']>;
    Relations: {
      [R in keyof PrismaTypes[M]['Relations']]: Omit<PrismaTypes[M]['Relations'][R], 'Shape'> & {
        Shape: Plain<PrismaTypes[M]['Relations'][R] extends { Shape: infer S } ? S : never>;
      };
    };
  };
};

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PlainPrismaTypes;
  AuthScopes: { authenticated: boolean; merchantUser: boolean; scope: Scope };
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: Date; Output: Date | string };
    Decimal: { Input: string; Output: string | { toFixed(digits?: number): string } };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ScopeAuthPlugin, RelayPlugin, PrismaPlugin, DataloaderPlugin],
  scopeAuth: {
    // A type's scopes are checked once per object, not again for each of its fields.
    runScopesOnType: true,
    authScopes: (ctx) => ({
      authenticated: ctx.auth !== null,
      merchantUser: ctx.auth?.merchantUser !== undefined,
      scope: (scope: Scope) => ctx.auth?.scopes.has(scope) ?? false,
    }),
    unauthorizedError: (_parent, _ctx, info, result) =>
      new GraphQLError(`Not authorized to read ${info.parentType.name}.${info.fieldName}: ${result.message}`, {
        extensions: { code: 'FORBIDDEN' },
      }),
  },
  relay: {
    cursorType: 'String',
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    nodesOnConnection: true,
    // Our ids are already prefixed and unique across the service: use them as global ids.
    encodeGlobalID: (_typename, id) => String(id),
    decodeGlobalID: (globalID) => {
      const kind = kindOfId(globalID);
      const typename = kind ? typenameForIdKind(kind) : undefined;
      if (!typename) {
        throw new GraphQLError(`"${globalID}" is not an id of this service`, { extensions: { code: 'BAD_USER_INPUT' } });
      }
      return { typename, id: globalID };
    },
  },
  prisma: {
    // plugin-prisma only reads (a node by id, a relation its parent did not bring), through the reader's delegates.
    client: (ctx) => ctx.reads as unknown as PrismaClient,
    dmmf: getDatamodel(),
    // Limits are enforced with clear errors by connectionArgs.ts; the plugin must never clamp silently.
    maxConnectionSize: 1000,
    defaultConnectionSize: DEFAULT_PAGE_SIZE,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

// Select mode. A prisma type declared with `select` (the inbound-shipment graph: shipments,
// their items, products, levels, locations) loads only the columns its selection reads, and
// a field that reads the row declares what it reads (`select`), which the compiler holds it
// to. Each such field pays plugin-prisma a lookup per row, to know whether the query that
// loaded the row planned it; so the columns nearly every selection of the type reads (a
// product's title, a level's stock figures) sit in the type's own `select`, load with every
// row, and their fields read the row directly. Types read as whole rows (returns, orders)
// stay in include mode, where select mode measured no gain.

builder.queryType({});
builder.mutationType({});

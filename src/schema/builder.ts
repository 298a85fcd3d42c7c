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
import { IDEMPOTENCY_KEY_RULES } from '../formats/idempotencyKey.ts';
import type { Scope } from '../auth/scopes.ts';
import { kindOfId } from '../domain/ids.ts';
import type { GraphQLContext } from './context.ts';
import { typenameForIdKind } from './nodeTypes.ts';
import { DEFAULT_PAGE_SIZE } from './connectionArgs.ts';
import { MAX_PAGE_SIZE } from './context.ts';

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

const ID_DESCRIPTION =
  "Opaque id, unique across the service (it starts with a type prefix such as `prd_` or `cus_`; a Return's is 24 hex digits). " +
  '`node(id:)` fetches the object again.';


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
    // A subscription's scopes are checked once, when it is opened, not again for each event.
    authorizeOnSubscribe: true,
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
    // Descriptions of what plugin-relay generates: every connection, edge, PageInfo, Node, node(s).
    nodeTypeOptions: { description: 'An object that can be fetched by its id alone, with `node(id:)` or `nodes(ids:)`.' },
    idFieldOptions: { description: ID_DESCRIPTION },
    nodeQueryOptions: {
      description:
        "The object with this id, of any Node type; null when it does not exist or the caller's store may not see it. " +
        "Needs the scope that reads the object's type (e.g. `products_read` for a Product), else FORBIDDEN.",
      args: { id: { description: "An object's `id`; a string that is no id of this service gives BAD_USER_INPUT." } },
    },
    nodesQueryOptions: {
      description:
        "The objects with these ids, in the order asked; null for each that does not exist or the caller's store may not see. " +
        'Needs the scope that reads each type asked for, else FORBIDDEN.',
      args: { ids: { description: 'Ids of objects of any Node types; a string that is no id of this service gives BAD_USER_INPUT.' } },
    },
    pageInfoTypeOptions: { description: 'Where a page sits in its list: whether items come before or after it, and the cursors to continue from.' },
    hasNextPageFieldOptions: {
      description: 'True when items follow this page (read them with `after: endCursor`). When paging backward (`last`/`before`), true exactly when `before` was given.',
    },
    hasPreviousPageFieldOptions: {
      description: 'True when items precede this page (read them with `before: startCursor`). When paging forward (`first`/`after`), true exactly when `after` was given.',
    },
    startCursorFieldOptions: { description: "Cursor of the page's first item, to pass as `before` for the page before; null when the page is empty." },
    endCursorFieldOptions: { description: "Cursor of the page's last item, to pass as `after` for the page after; null when the page is empty." },
    firstArgOptions: {
      description:
        `Forward paging: how many items to return from the start of the list, or after \`after\`; 0 to ${MAX_PAGE_SIZE.v3}, ` +
        `default ${DEFAULT_PAGE_SIZE} when neither \`first\` nor \`last\` is given. Not with \`last\` or \`before\` (BAD_USER_INPUT).`,
    },
    afterArgOptions: {
      description:
        "Forward paging: return the items after this cursor (an edge's `cursor` or `pageInfo.endCursor` of the same field with the same arguments), " +
        'passed back unchanged. Not with `last` or `before`; a cursor the service cannot read gives BAD_USER_INPUT.',
    },
    lastArgOptions: {
      description:
        `Backward paging: how many items to return from the end of the list, or before \`before\`; 0 to ${MAX_PAGE_SIZE.v3}, ` +
        `default ${DEFAULT_PAGE_SIZE}. Not with \`first\` or \`after\` (BAD_USER_INPUT).`,
    },
    beforeArgOptions: {
      description:
        "Backward paging: return the items before this cursor (an edge's `cursor` or `pageInfo.startCursor` of the same field with the same arguments), " +
        'passed back unchanged. Not with `first` or `after`; a cursor the service cannot read gives BAD_USER_INPUT.',
    },
    defaultConnectionTypeOptions: {
      description:
        'A page of a list: read forward with `first`/`after` or backward with `last`/`before`; `pageInfo` tells whether more pages exist.',
    },
    defaultEdgeTypeOptions: { description: 'One item of a page, with the cursor of its position in the list.' },
    pageInfoFieldOptions: { description: 'Whether more items precede or follow this page, and the cursors of its first and last items.' },
    edgesFieldOptions: { nullable: false, description: 'The items of this page in list order, each with its cursor (empty when there are none).' },
    nodesOnConnection: { description: 'The items of this page in list order, without their cursors (the same items as `edges`).' },
    nodeFieldOptions: { nullable: false, description: 'The item at this position of the list.' },
    cursorFieldOptions: {
      description:
        "Opaque cursor of this item's position: pass it back unchanged as `after` for the items after it, or as `before` for the items before it, " +
        'on the same field with the same arguments.',
    },
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
// stay in include mode, where select mode measured no gain. A type whose id nothing but its
// `id` field reads declares `id: false`: the `id` field selects it (registerNode), and a field
// that cannot join its row's plan (the same relation asked twice with other arguments) makes
// the plan load it, since such a field loads its data by its row's id (the patched
// selection-mapper's loadKey).

builder.queryType({
  description:
    'Reads of the v3 interface. Every request needs `Authorization: Bearer <API secret>` (UNAUTHENTICATED without a valid one); ' +
    'a field that needs a scope the API client lacks fails with FORBIDDEN.',
});
builder.mutationType({
  description:
    "Writes of the v3 interface; one that needs a scope the caller lacks fails with FORBIDDEN. Refused input comes back in the payload's " +
    '`userErrors` where the payload has them, else as a GraphQL error whose `extensions.code` says why (e.g. BAD_USER_INPUT, NOT_FOUND, CONFLICT). ' +
    `Over HTTP: ${IDEMPOTENCY_KEY_RULES} Here the request is the whole POST body (document, variables, operation name); the refusals are ` +
    'GraphQL errors with extensions.code UNPROCESSABLE (422) and CONFLICT (409).',
});

// Enforces the connection argument rules (docs/interface-rules.md, "Lists and pages") on every field that takes
// first/after/last/before, with BAD_USER_INPUT errors instead of silent clamping.
import { GraphQLError, GraphQLObjectType, defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context.ts';

/** Page size of a connection when neither first nor last is given. */
export const DEFAULT_PAGE_SIZE = 25;

interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

function bad(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

export function checkConnectionArgs(args: ConnectionArgs, maxPageSize: number): void {
  const { first, after, last, before } = args;
  const hasFirst = first !== undefined && first !== null;
  const hasLast = last !== undefined && last !== null;
  if (hasFirst && hasLast) throw bad('"first" and "last" cannot be used together');
  if (hasFirst && before != null) throw bad('"first" goes with "after", not with "before"');
  if (hasLast && after != null) throw bad('"last" goes with "before", not with "after"');
  if (after != null && before != null) throw bad('"after" and "before" cannot be used together');
  for (const [name, value] of [['first', first], ['last', last]] as const) {
    if (value === undefined || value === null) continue;
    if (value < 0) throw bad(`"${name}" must not be negative`);
    if (value > maxPageSize) throw bad(`"${name}" must be at most ${maxPageSize}`);
  }
}

export function enforceConnectionArgs(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const names = new Set(field.args.map((a) => a.name));
      if (!(names.has('first') && names.has('last'))) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (parent, args, ctx: GraphQLContext, info) => {
        checkConnectionArgs(args as ConnectionArgs, ctx.maxPageSize);
        return resolve(parent, args, ctx, info);
      };
    }
  }
  return schema;
}

// Typed user errors of the inventory mutations: a refused input comes back in the
// payload's `userErrors` (code, field path, message) instead of as a GraphQL error,
// so an app can show it next to the offending field. The classification is the
// one of errors.ts; authorization and internal failures stay GraphQL errors.
import type { ObjectRef } from '@pothos/core';
import { builder } from './builder.ts';
import type { GraphQLContext } from './context.ts';
import { classifyError, type ErrorCode } from './errors.ts';
import type { BuilderTypes } from './node.ts';
import { toPlain, type Plain } from '../db/reads/plain.ts';

export const UserErrorCode = builder.enumType('UserErrorCode', {
  description: 'Kind of a refusal in `userErrors`; the same refusal as a GraphQL error has code BAD_USER_INPUT, NOT_FOUND, CONFLICT or UNPROCESSABLE.',
  values: {
    INVALID: { description: 'The input breaks a rule; `field` names it' },
    NOT_FOUND: { description: 'A named record does not exist or is not visible to the caller' },
    CONFLICT: { description: 'The input clashes with existing data (a taken name or SKU, a value in use)' },
    UNPROCESSABLE: { description: "The record's state does not allow the operation" },
  } as const,
});

type UserErrorCodeValue = 'INVALID' | 'NOT_FOUND' | 'CONFLICT' | 'UNPROCESSABLE';

export interface UserErrorShape {
  code: UserErrorCodeValue;
  field: string[] | null;
  message: string;
}

export const UserError = builder.objectRef<UserErrorShape>('UserError').implement({
  description: 'Why a mutation was refused; nothing was written',
  fields: (t) => ({
    code: t.field({ nullable: false, type: UserErrorCode, description: 'The kind of refusal, for a program to act on', resolve: (e) => e.code }),
    field: t.exposeStringList('field', { nullable: true, description: 'Path of the input field, e.g. ["input", "items", "0", "quantity"]' }),
    message: t.exposeString('message', { nullable: false, description: 'What is wrong, in English, fit to show to the person who gave the input' }),
  }),
});

const USER_ERROR_CODES: Partial<Record<ErrorCode, UserErrorCodeValue>> = {
  BAD_USER_INPUT: 'INVALID',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  UNPROCESSABLE: 'UNPROCESSABLE',
};

export interface MutationCall {
  ctx: GraphQLContext;
  /** The argument holding the input object; domain paths are relative to it. */
  input?: string;
  /** Arguments of their own (ids beside the input), named by the domain with the same path. */
  args?: readonly string[];
}

/**
 * Runs a mutation's domain call. A refusal becomes user errors whose field paths
 * are full argument paths; anything else is rethrown. (The payload selection was
 * checked before the mutation ran: checkPayloadsBeforeWriting.)
 */
export async function withUserErrors<T>(call: MutationCall, run: () => Promise<T>): Promise<{ result: Plain<T> | null; userErrors: UserErrorShape[] }> {
  try {
    // The domain answers Prisma's rows; resolvers read rows as `reads` answers them.
    return { result: toPlain(await run()), userErrors: [] };
  } catch (error) {
    const classified = classifyError(error);
    const code = USER_ERROR_CODES[classified.code];
    if (!code) throw error;
    const fieldOf = (path: string): string[] | null => {
      if (!path) return null;
      if (call.args?.includes(path) || !call.input) return path.split('.');
      return [call.input, ...path.split('.')];
    };
    const issues = classified.issues.length > 0 ? classified.issues : [{ path: '', message: classified.message }];
    return { result: null, userErrors: issues.map((issue) => ({ code, field: fieldOf(issue.path), message: issue.message })) };
  }
}

/** A mutation payload: the changed object under `field` (null when refused) and the user errors. */
export function payloadType(
  name: string,
  field: string,
  type: ObjectRef<BuilderTypes, object>,
  descriptions: { type?: string; field?: string } = {},
) {
  return builder.objectRef<{ result: object | null; userErrors: UserErrorShape[] }>(name).implement({
    description: descriptions.type ?? `Outcome of a mutation: \`${field}\` when it succeeded, else \`userErrors\` saying why nothing was written.`,
    fields: (t) => ({
      [field]: t.field({
        type,
        nullable: true,
        description: descriptions.field ?? `The ${type.name} as the mutation left it; null when the mutation was refused.`,
        resolve: (payload) => payload.result,
      }),
      userErrors: t.field({
        nullable: false,
        type: [UserError],
        description: 'Why the mutation was refused (nothing was written); empty when it succeeded',
        resolve: (payload) => payload.userErrors,
      }),
    }),
  });
}

// One classification of every failure an operation can end with. The v3 door
// turns it into `extensions.code`; REST and compat turn the same code into their
// own status and body (rest/problem.ts, compat/errors.ts).
import { GraphQLError } from 'graphql';
import { PothosValidationError } from '@pothos/core';
import { isDomainError, type FieldIssue, type DomainErrorCode } from '../domain/errors.ts';
import { databaseFailure } from '../db/failures.ts';
import { SearchTimedOut } from '../db/reads/reader.ts';
import { SEARCH_ADVICE } from '../domain/search/kinds.ts';

export type { FieldIssue };

export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'FORBIDDEN'
  | 'UNAUTHENTICATED'
  | 'UNPROCESSABLE'
  | LimitCode
  /** The database is down, restarting or out of connections: retry shortly. */
  | 'UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR';

/** Refusals of a /v3/graphql document that asks for too much (schema/limits.ts). */
export type LimitCode = 'TOO_MANY_ALIASES' | 'QUERY_TOO_DEEP' | 'TOO_MANY_TOKENS' | 'TOO_MANY_DIRECTIVES' | 'QUERY_TOO_COSTLY';
export const LIMIT_CODES: readonly LimitCode[] = ['TOO_MANY_ALIASES', 'QUERY_TOO_DEEP', 'TOO_MANY_TOKENS', 'TOO_MANY_DIRECTIVES', 'QUERY_TOO_COSTLY'];

export interface ClassifiedError {
  code: ErrorCode;
  message: string;
  issues: FieldIssue[];
  /** The underlying error, kept for logs of internal failures. */
  cause?: unknown;
}

const DOMAIN_CODES: Record<DomainErrorCode, ErrorCode> = {
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  INVALID: 'BAD_USER_INPUT',
  FORBIDDEN: 'FORBIDDEN',
  UNPROCESSABLE_STATE: 'UNPROCESSABLE',
};

const KNOWN_CODES = new Set<string>(['BAD_USER_INPUT', 'NOT_FOUND', 'CONFLICT', 'FORBIDDEN', 'UNAUTHENTICATED', 'UNPROCESSABLE', 'UNAVAILABLE', ...LIMIT_CODES]);

export function classifyError(error: unknown): ClassifiedError {
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (isDomainError(original)) {
    return { code: DOMAIN_CODES[original.code], message: original.message, issues: original.issues };
  }
  if (original instanceof SearchTimedOut) {
    const message = `query: ${original.message}: it matches too much for an index to narrow; ${SEARCH_ADVICE}`;
    return { code: 'BAD_USER_INPUT', message, issues: [{ path: 'query', message }] };
  }
  // plugin-prisma's refusal of a connection cursor it cannot read (`after: "-1"`): the caller's.
  if (original instanceof PothosValidationError) return { code: 'BAD_USER_INPUT', message: original.message, issues: [] };
  if (original instanceof GraphQLError) {
    const code = original.extensions?.code;
    if (typeof code === 'string' && KNOWN_CODES.has(code)) {
      return { code: code as ErrorCode, message: original.message, issues: (original.extensions.issues as FieldIssue[]) ?? [] };
    }
  }
  if (error instanceof GraphQLError && (!error.originalError || (!error.path && error.originalError instanceof GraphQLError))) {
    // Parse and validation errors of the document, and coercion errors of its variables
    // (a bad enum value, an Int out of range: a GraphQLError from a scalar's parseValue,
    // outside any resolver path): the caller's fault.
    return { code: 'BAD_USER_INPUT', message: error.message, issues: [] };
  }
  switch (databaseFailure(original)) {
    case 'unavailable':
      return { code: 'UNAVAILABLE', message: 'the database is unavailable; retry shortly', issues: [], cause: original };
    case 'input':
      return { code: 'BAD_USER_INPUT', message: 'the request holds text the database cannot store (such as U+0000) or is nested too deeply', issues: [] };
  }
  return { code: 'INTERNAL_SERVER_ERROR', message: 'internal error', issues: [], cause: original };
}

/** The GraphQL error a client of v3 sees; internal details never leave the server. */
export function toGraphQLError(error: unknown): GraphQLError {
  const classified = classifyError(error);
  const base = error instanceof GraphQLError ? error : undefined;
  const extensions: Record<string, unknown> = { code: classified.code };
  if (classified.issues.length > 0) extensions.issues = classified.issues;
  return new GraphQLError(classified.message, {
    nodes: base?.nodes,
    source: base?.source,
    positions: base?.positions,
    path: base?.path,
    extensions,
  });
}

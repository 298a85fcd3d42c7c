// How the REST and compat doors run a GraphQL operation against the schema: the
// document is parsed and validated once, at first use, and executed in-process.
import { execute, parse, validate, type DocumentNode, type ExecutionResult } from 'graphql';
import { schema } from './index.ts';
import type { GraphQLContext } from './context.ts';
import { classifyError, type ClassifiedError } from './errors.ts';

export interface Operation {
  source: string;
  document: DocumentNode;
}

export class InvalidOperationError extends Error {}

/** Parses and validates an operation document against the schema; throws at load time if it is wrong. */
export function defineOperation(source: string): Operation {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0) {
    throw new InvalidOperationError(`invalid operation document: ${errors.map((e) => e.message).join('; ')}\n${source}`);
  }
  return { source, document };
}

let executeOperation: typeof execute = execute;

/** Runs operations through `traced` (telemetry.ts: the operation span) or, without it, graphql-js's execute. */
export function configureOperationExecution(traced: typeof execute | undefined): void {
  executeOperation = traced ?? execute;
}

export type OperationOutcome<T> = { ok: true; data: T } | { ok: false; error: ClassifiedError; result: ExecutionResult };

/**
 * Runs the operation. Any error makes the whole outcome an error (the first one, which is
 * what a REST or compat client can be told); partial data is never passed on.
 */
export async function runOperation<T = Record<string, unknown>>(
  operation: Operation,
  variables: Record<string, unknown>,
  ctx: GraphQLContext,
): Promise<OperationOutcome<T>> {
  const result = (await executeOperation({ schema, document: operation.document, variableValues: variables, contextValue: ctx })) as ExecutionResult;
  if (result.errors && result.errors.length > 0) {
    const error = classifyError(result.errors[0]);
    if (error.code === 'INTERNAL_SERVER_ERROR') {
      ctx.logger.error('operation failed', { requestId: ctx.requestId, door: ctx.door, error: result.errors[0].originalError ?? result.errors[0] });
    } else if (error.code === 'UNAVAILABLE') {
      ctx.logger.warn('database unavailable', { requestId: ctx.requestId, door: ctx.door, error: error.cause });
    }
    return { ok: false, error, result };
  }
  return { ok: true, data: result.data as T };
}

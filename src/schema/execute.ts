// How the REST and compat doors run a GraphQL operation against the schema: the
// document is parsed and validated once, at first use, and executed in-process.
import { parse, subscribe, validate, type DocumentNode, type ExecutionResult } from 'graphql';
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
  const result = (await ctx.services.execute({ schema, document: operation.document, variableValues: variables, contextValue: ctx })) as ExecutionResult;
  return outcomeOf<T>(result, ctx);
}

function outcomeOf<T>(result: ExecutionResult, ctx: GraphQLContext): OperationOutcome<T> {
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

export type SubscriptionOutcome<T> = { ok: true; events: AsyncIterableIterator<OperationOutcome<T>> } | { ok: false; error: ClassifiedError; result: ExecutionResult };

/**
 * Subscribes (the context must carry `live`). A refusal when subscribing (a missing scope,
 * bad input) is the outcome; otherwise each event's result comes as an outcome of its own.
 * Returning the events ends the subscription at once, even while an event is awaited.
 */
export async function runSubscription<T = Record<string, unknown>>(
  operation: Operation,
  variables: Record<string, unknown>,
  ctx: GraphQLContext,
): Promise<SubscriptionOutcome<T>> {
  const subscribed = await subscribe({ schema, document: operation.document, variableValues: variables, contextValue: ctx });
  if (!(Symbol.asyncIterator in subscribed)) {
    const outcome = outcomeOf<T>(subscribed, ctx);
    if (outcome.ok) throw new InvalidOperationError('a subscription answered with a single result and no error');
    return outcome;
  }
  const events: AsyncIterableIterator<OperationOutcome<T>> = {
    async next() {
      const next = await subscribed.next();
      return next.done ? { done: true, value: undefined } : { done: false, value: outcomeOf<T>(next.value, ctx) };
    },
    async return() {
      await subscribed.return(undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => events,
  };
  return { ok: true, events };
}

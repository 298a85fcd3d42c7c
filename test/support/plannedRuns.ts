// Runs a query on the planned path (src/schema/planned.ts) and the ordinary one, each in a
// request context of its own for the caller a secret authenticates, so tests can compare the
// two answers byte for byte and see which path the planner reported.
import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { authenticate, isAuthFailure } from '../../src/auth/authenticate.ts';
import type { Database } from '../../src/db/database.ts';
import { schema as serviceSchema } from '../../src/schema/index.ts';
import { createReadPlanner } from '../../src/schema/planned.ts';
import type { ReadPath } from '../../src/schema/readPlanner.ts';
import type { ContextRequest, GraphQLContext } from '../../src/schema/context.ts';
import { testContexts } from './contexts.ts';

export interface PlannedRuns {
  /** A request context of the caller `secret` authenticates. */
  contextOf(secret: string): Promise<GraphQLContext>;
  /** The operation run both ways; the paths the planner reported; the planned path's result. */
  bothWays(
    document: DocumentNode,
    variables: Record<string, unknown>,
    secret: string,
    schema?: GraphQLSchema,
  ): Promise<{ planned: string; ordinary: string; paths: ReadPath[]; result: ExecutionResult }>;
}

/** `db`: the database the test's server opened (asked when a run starts, as servers start in beforeAll). */
export function plannedRuns(db: () => Database, door: ContextRequest['door'], requestId: string): PlannedRuns {
  const contextOf = async (secret: string) => {
    const auth = await authenticate(db().prisma, secret);
    if (isAuthFailure(auth)) throw new Error(auth.message);
    return testContexts(db())({ auth, door, requestId });
  };
  return {
    contextOf,
    async bothWays(document, variables, secret, schema = serviceSchema) {
      const paths: ReadPath[] = [];
      const planner = createReadPlanner((path) => paths.push(path));
      const planned = (await planner.execute({ schema, document, variableValues: variables, contextValue: await contextOf(secret) }, execute)) as ExecutionResult;
      const ordinary = (await execute({ schema, document, variableValues: variables, contextValue: await contextOf(secret) })) as ExecutionResult;
      return { planned: JSON.stringify(planned), ordinary: JSON.stringify(ordinary), paths, result: planned };
    },
  };
}

// What the context and the doors know of the read planner (planned.ts): its one method and the
// paths it reports. A module of its own, since the context names the planner and the planner
// reads the context.
import type { execute, ExecutionArgs } from 'graphql';

export type ReadPath = 'planned' | 'fallback';

/** Told of every operation run: which path it took. */
export type ReadPathObserver = (path: ReadPath, operationName: string) => void;

/** The plan of each document and operation name against each schema, made once. */
export interface ReadPlanner {
  /** Runs `args` planned when its document allows it and the caller may, else with `fallback`. */
  execute(args: ExecutionArgs, fallback: typeof execute): ReturnType<typeof execute>;
}

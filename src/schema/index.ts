// Builds the one schema every door executes against. Each type group registers
// itself with the builder on import.
import { builder } from './builder.ts';
import './scalars.ts';
import './store.ts';
import { enforceConnectionArgs } from './connectionArgs.ts';

export const schema = enforceConnectionArgs(builder.toSchema({ sortSchema: false }));

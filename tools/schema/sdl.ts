// The served v3 schema as the checked-in SDL: printed from the schema the server builds,
// with types and fields in alphabetical order so that a change reads as a small diff.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';

export const SDL_FILE = new URL('../../schema.graphql', import.meta.url);

export function printSortedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

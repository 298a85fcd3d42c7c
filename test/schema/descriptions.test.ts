// Every type, field, argument, enum value and input field of the served v3 schema says what
// it is (issue 27): GraphiQL's documentation pane and code generators show nothing else.
// GraphQL's own scalars and the introspection types are described by graphql-js.
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLNamedType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';

/** Each schema element without a description, as `kind Type.member(argument)`. */
function bareElements(types: readonly GraphQLNamedType[]): string[] {
  const bare: string[] = [];
  const described = (text: string | null | undefined) => typeof text === 'string' && text.trim().length > 0;
  for (const type of types) {
    if (type.name.startsWith('__') || isSpecifiedScalarType(type)) continue;
    if (!described(type.description)) bare.push(`type ${type.name}`);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!described(field.description)) bare.push(`field ${type.name}.${field.name}`);
        for (const arg of field.args) if (!described(arg.description)) bare.push(`argument ${type.name}.${field.name}(${arg.name})`);
      }
    }
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) if (!described(field.description)) bare.push(`input field ${type.name}.${field.name}`);
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) if (!described(value.description)) bare.push(`enum value ${type.name}.${value.name}`);
    }
  }
  return bare;
}

describe('schema descriptions', () => {
  it('describe every type, field, argument, enum value and input field', () => {
    const bare = bareElements(Object.values(schema.getTypeMap()));
    expect(bare[0], `${bare.length} schema elements have no description; the first: ${bare[0]}`).toBeUndefined();
  });

  it('name each bare element, blank descriptions included', () => {
    const probe = new GraphQLObjectType({
      name: 'Probe',
      description: 'A type made for this test',
      fields: {
        described: { type: GraphQLString, description: 'Has one' },
        bare: { type: GraphQLString, description: '  ', args: { size: { type: GraphQLString } } },
      },
    });
    expect(bareElements([probe])).toEqual(['field Probe.bare', 'argument Probe.bare(size)']);
  });

  it('say what to use instead on every deprecation', () => {
    const vague: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
      for (const field of Object.values(type.getFields())) {
        if (field.deprecationReason !== undefined && field.deprecationReason !== null && !/\bUse \w/.test(field.deprecationReason)) vague.push(`${type.name}.${field.name}: ${field.deprecationReason}`);
      }
    }
    expect(vague).toEqual([]);
  });
});

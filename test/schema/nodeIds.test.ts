// Node ids are read from the row synchronously (resolveNodeIdsSynchronously): a promise per
// node would put every field of every node on graphql-js's asynchronous path.
import { isInterfaceType, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';

describe('node ids', () => {
  it("are each node type's row id, resolved without a promise", () => {
    const node = schema.getType('Node');
    if (!isInterfaceType(node)) throw new Error('no Node interface');
    const types = schema.getPossibleTypes(node);
    expect(types.map((t) => t.name)).toEqual(expect.arrayContaining(['Return', 'Order', 'Customer', 'Product', 'Location']));
    for (const type of types) {
      const id = type.getFields().id.resolve!({ id: 'row-id' }, {}, {}, {} as GraphQLResolveInfo);
      expect(id, type.name).toBe('row-id');
    }
  });
});

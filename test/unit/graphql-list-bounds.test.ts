import { describe, expect, it } from 'vitest';
import { getNamedType, getNullableType, isListType, isObjectType, isLeafType, type GraphQLObjectType } from 'graphql';
import { schema } from '../../src/transport/graphql/schema.ts';
import type { ListSize } from '../../src/transport/graphql/cost.ts';

/**
 * The cost estimate multiplies by what a list can hold, so every plain list of objects in the
 * API schema must say so (`extensions.list`): a new list without a bound fails here instead of
 * being counted as a full page. Connections are sized by `first`/`last` and are not plain lists.
 */
describe('list bounds of the /graphql schema', () => {
  const lists = Object.values(schema.getTypeMap())
    .filter((t) => isObjectType(t) && !t.name.startsWith('__') && !t.name.endsWith('Connection'))
    .flatMap((t) =>
      Object.values((t as GraphQLObjectType).getFields()).map((f) => ({ name: `${t.name}.${f.name}`, field: f })),
    )
    .filter(({ field }) => isListType(getNullableType(field.type)) && !isLeafType(getNamedType(field.type)));

  it('declares how many items each plain list of objects can return', () => {
    expect(lists.length).toBeGreaterThan(5);
    expect(lists.filter(({ field }) => !(field.extensions as { list?: ListSize }).list).map((l) => l.name)).toEqual([]);
  });

  it('sizes by arguments that exist: an Int for a size, a list for a count', () => {
    for (const { name, field } of lists) {
      const list = (field.extensions as { list: ListSize }).list;
      if ('countArg' in list) {
        const arg = field.args.find((a) => a.name === list.countArg);
        expect(arg && isListType(getNullableType(arg.type)), name).toBe(true);
      } else if (list.sizeArg) {
        expect(field.args.find((a) => a.name === list.sizeArg)?.type.toString(), name).toMatch(/^Int!?$/);
        expect(list.max, name).toBeGreaterThan(0);
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { VARIABLE_LIMITS, variablesRefusal } from '../../src/transport/graphql/variables.ts';

/** The bounds on a request's variables (variables.ts), at and past each one; the served refusal: graphql-introspection.test.ts. */
describe('variables bounded in depth and size before any walk', () => {
  const nested = (depth: number): unknown => {
    let v: unknown = 'x';
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  };

  it('takes variables nested up to the bound and refuses one level more, with the limit named', () => {
    expect(variablesRefusal({ x: nested(VARIABLE_LIMITS.maxDepth - 1) })).toBeNull();
    expect(variablesRefusal({ x: nested(VARIABLE_LIMITS.maxDepth) })?.extensions).toMatchObject({
      code: 'invalid_request',
      limit: 'maxDepth',
      maximum: VARIABLE_LIMITS.maxDepth,
    });
  });

  it('takes as many values as the largest input holds and refuses more, with the limit named', () => {
    // The variables object counts as one value, its list as another.
    expect(variablesRefusal({ x: new Array(VARIABLE_LIMITS.maxValues - 2).fill(0) })).toBeNull();
    expect(variablesRefusal({ x: new Array(VARIABLE_LIMITS.maxValues - 1).fill(0) })?.extensions).toMatchObject({
      code: 'invalid_request',
      limit: 'maxValues',
      maximum: VARIABLE_LIMITS.maxValues,
    });
  });

  it('walks 30,000 levels without overflowing its own stack', () => {
    expect(variablesRefusal({ x: nested(30_000) })?.extensions?.limit).toBe('maxDepth');
  });
});

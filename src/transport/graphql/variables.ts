import { GraphQLError } from 'graphql';
import { ERRORS } from '../../errors.ts';

/**
 * Bounds of a request's variables, checked before anything walks them (the cost estimate, its cache key,
 * coercion): JSON.parse builds a value nested as deep as the body allows (some 30,000 levels in 64 KB), and
 * the recursive walks after it (JSON.stringify of the cost cache's key among them) overflowed the stack: an
 * internal error and a stack trace logged per request. No input of the schema nests deeper than 5 levels
 * (a bulk report's related subject), and the largest one (1,000 bulk reports of 50 related subjects each)
 * holds about 220,000 values.
 */
export const VARIABLE_LIMITS = { maxDepth: 16, maxValues: 250_000 };

/** The refusal for variables over the bounds, or null. Iterative: its own walk cannot overflow. */
export function variablesRefusal(variables: unknown): GraphQLError | null {
  const stack: Array<[unknown, number]> = [[variables, 0]];
  let values = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (++values > VARIABLE_LIMITS.maxValues)
      return refusal('maxValues', `more than ${VARIABLE_LIMITS.maxValues} values`);
    if (v === null || typeof v !== 'object') continue;
    if (depth >= VARIABLE_LIMITS.maxDepth)
      return refusal('maxDepth', `lists or objects nested more than ${VARIABLE_LIMITS.maxDepth} levels deep`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return null;
}

function refusal(limit: keyof typeof VARIABLE_LIMITS, what: string): GraphQLError {
  return new GraphQLError(`The variables hold ${what}; no input of this API needs that many.`, {
    extensions: {
      code: 'invalid_request',
      limit,
      maximum: VARIABLE_LIMITS[limit],
      http: { status: ERRORS.invalid_request.status },
    },
  });
}

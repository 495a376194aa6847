import {
  Kind,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  valueFromASTUntyped,
  type DocumentNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { QUERY_LIMITS, fragmentsOf, once, tooComplex, type QueryLimit } from './limits.ts';
import { AppError } from '../../errors.ts';
import { introspectionCost, isIntrospectionField } from './introspection.ts';

/**
 * The cost of an operation: what it can actually return, before it runs. Every field costs its
 * weight (1, or more for long texts: `textCost`), times the number of items its parents can list:
 * - a connection lists its `first`/`last`, or the server's default page of 20;
 * - a plain list lists what its field declares in `extensions.list` (ListSize): a fixed maximum,
 *   the value of a size argument (its default when absent), or one item per element of a list
 *   argument (`nodes(ids:)`); a list declaring nothing counts as a full page (100).
 * Arguments given as variables count exactly like literals (a variable's default included), and
 * the estimate names the variables it read, so a cached cost is reused only for the same values.
 */

/** How many items a plain list field can return; declared on the field as `extensions: { list }`. */
export type ListSize = { max: number; sizeArg?: string } | { countArg: string; limit: QueryLimit };

/**
 * The resolver's side of a `sizeArg`: how many items to return for a `limit` argument of a list of
 * at most `max` (all when absent); invalid_request outside 0..max.
 */
export function listLimit(limit: number | null | undefined, max: number): number {
  if (limit == null) return max;
  if (!Number.isInteger(limit) || limit < 0 || limit > max) {
    throw new AppError('invalid_request', `limit must be 0-${max}.`, [{ field: 'limit', message: `must be 0-${max}` }]);
  }
  return limit;
}

/** Answer characters one cost point stands for: a field holding up to n characters weighs n / 100. */
const CHARS_PER_POINT = 100;

/** Weight of a text field of at most `maxChars` characters (`extensions: { cost }`). */
export function textCost(maxChars: number): number {
  return Math.max(1, Math.ceil(maxChars / CHARS_PER_POINT));
}

/** Items of a connection without `first`/`last`: the builder's `defaultConnectionSize`. */
const DEFAULT_PAGE = 20;

type Extensions = { cost?: number; list?: ListSize };
type Variables = Record<string, unknown>;

export type CostEstimate = {
  cost: number;
  /** Names of the variables the cost depends on (sorted). */
  variables: string[];
};

/** The operation's cost; throws query_too_complex for a page over maxPageSize or a list argument over its limit. */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: unknown,
): CostEstimate {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  const root = !op
    ? null
    : op.operation === 'mutation'
      ? schema.getMutationType()
      : op.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  if (!op || !root) return { cost: 0, variables: [] };
  const variables = effectiveVariables(op, rawVariables);
  const read = new Set<string>();
  const argValue = (node: ValueNode | undefined): unknown => {
    if (!node) return undefined;
    collectVariables(node, read);
    return valueFromASTUntyped(node, variables);
  };

  /** Items one selection of `field` can list, or null when it is not a list of objects. */
  const itemsOf = (
    field: GraphQLField<unknown, unknown>,
    parent: GraphQLNamedType,
    args: Map<string, ValueNode>,
    name: string,
  ): number | null => {
    const type = getNullableType(field.type);
    if (getNamedType(type).name.endsWith('Connection')) {
      let size: number | null = null;
      for (const arg of ['first', 'last']) {
        const n = argValue(args.get(arg));
        if (typeof n !== 'number') continue;
        checkPageSize(name, arg, n);
        size = Math.max(size ?? 0, n);
      }
      return Math.max(0, size ?? DEFAULT_PAGE);
    }
    // The `edges` and `nodes` of a connection are its page, counted on the connection itself.
    if (!isListType(type) || parent.name.endsWith('Connection')) return null;
    const list = (field.extensions as Extensions | undefined)?.list;
    if (!list) return QUERY_LIMITS.maxPageSize;
    if ('countArg' in list) {
      const v = argValue(args.get(list.countArg));
      const n = Array.isArray(v) ? v.length : v == null ? 0 : 1; // a single value is coerced to a list of one
      const max = QUERY_LIMITS[list.limit];
      if (n > max)
        throw tooComplex(
          list.limit,
          `${name}(${list.countArg}:) is given ${n} items; at most ${max} are allowed per call.`,
          { actual: n, field: name },
        );
      return n;
    }
    if (!list.sizeArg) return list.max;
    const given = argValue(args.get(list.sizeArg));
    const n = typeof given === 'number' ? given : field.args.find((a) => a.name === list.sizeArg)?.defaultValue;
    if (typeof n !== 'number') return list.max;
    checkPageSize(name, list.sizeArg, n);
    return Math.max(0, Math.min(n, list.max));
  };

  const fragments = fragmentsOf(document);
  // A fragment's cost depends only on the fragment (its type condition is fixed): computed once, as for depth.
  const memo = new Map<string, number>();
  const active = new Set<string>();
  const walk = (set: SelectionSetNode, parent: GraphQLOutputType): number => {
    const named = getNamedType(parent);
    const fields = isObjectType(named) || isInterfaceType(named) ? named.getFields() : {};
    let total = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.INLINE_FRAGMENT) {
        const target = s.typeCondition ? schema.getType(s.typeCondition.name.value) : named;
        total += walk(s.selectionSet, (target ?? named) as GraphQLOutputType);
        continue;
      }
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        total += once(s.name.value, fragments, memo, active, (f) =>
          walk(f.selectionSet, (schema.getType(f.typeCondition.name.value) ?? named) as GraphQLOutputType),
        );
        continue;
      }
      const field = fields[s.name.value];
      if (!field) {
        // `__schema` and `__type` weigh what they answer; `__typename` (and nothing else) is missing from the fields.
        total += isIntrospectionField(s.name.value) ? introspectionCost(schema, document, s, variables) : 1;
        continue;
      }
      const args = new Map((s.arguments ?? []).map((a) => [a.name.value, a.value]));
      const weight = (field.extensions as Extensions | undefined)?.cost ?? 1;
      const items = itemsOf(field, named, args, s.name.value);
      total += weight + (s.selectionSet ? (items ?? 1) * walk(s.selectionSet, field.type) : 0);
    }
    return total;
  };
  const cost = walk(op.selectionSet, root);
  return { cost, variables: [...read].sort() };
}

function checkPageSize(field: string, arg: string, n: number): void {
  if (n > QUERY_LIMITS.maxPageSize) {
    throw tooComplex(
      'maxPageSize',
      `${field}(${arg}: ${n}) asks for more than ${QUERY_LIMITS.maxPageSize} items; page through with cursors.`,
      { actual: n, field },
    );
  }
}

/** The variables as execution will see them: the values sent, else each definition's default. */
function effectiveVariables(op: OperationDefinitionNode, raw: unknown): Variables {
  const sent = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Variables) : {};
  const out: Variables = Object.create(null);
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (Object.hasOwn(sent, name) && sent[name] !== undefined) out[name] = sent[name];
    else if (def.defaultValue) out[name] = valueFromASTUntyped(def.defaultValue);
  }
  return out;
}

function collectVariables(node: ValueNode, into: Set<string>): void {
  if (node.kind === Kind.VARIABLE) into.add(node.name.value);
  else if (node.kind === Kind.LIST) for (const v of node.values) collectVariables(v, into);
  else if (node.kind === Kind.OBJECT) for (const f of node.fields) collectVariables(f.value, into);
}

import {
  GraphQLError, Kind, visit, getNamedType, getNullableType, isListType, isObjectType, isInterfaceType,
  type ASTVisitor, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode,
  type SelectionSetNode, type ValidationContext, type ValueNode, type GraphQLOutputType,
} from 'graphql';

/**
 * Query cost limits for /graphql. Depth and aliases are validation rules (static); tokens are
 * a parse option; page sizes and the overall cost need the variables, so they are checked
 * just before execution. Every violation is a GraphQL error with extensions.code
 * `query_too_complex` and a `limit` naming which one. The REST facade runs its own fixed,
 * pre-validated documents and never passes through here.
 */
export const QUERY_LIMITS = {
  // A five-hop walk (subject → report → subject → report → subject → IP dimension → entity → IPs) is 15 deep.
  maxDepth: 16,
  maxAliases: 30,
  maxTokens: 3000,
  /** Largest `first`, `last` or `limit` one field may ask for. */
  maxPageSize: 100,
  /**
   * Budget of the estimate below (a worst case: every page full). A five-hop walk with
   * `first: 5` on each connection costs about 40,000; 100 reports with their subjects' 100 reports, ~30,000.
   */
  maxCost: 100_000,
} as const;

/** Items assumed for a connection without `first`/`last` (the server default) and for a plain list of objects. */
const DEFAULT_PAGE = 20;
const ASSUMED_LIST = 5;

export function tooComplex(limit: keyof typeof QUERY_LIMITS | 'maxCost', message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'query_too_complex', limit, maximum: QUERY_LIMITS[limit], ...extra } });
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const map = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) map.set(d.name.value, d);
  return map;
}

/**
 * Depth of a selection set, fragments expanded. Each fragment's depth is computed once (`memo`):
 * without that, fragments spreading the next one twice cost 2^n walks, a CPU hang from a
 * document of a few hundred tokens. A fragment already on the path (a cycle, which validation
 * refuses anyway) adds nothing.
 */
function depthOf(set: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>, memo: Map<string, number>, active: Set<string>): number {
  if (!set) return 0;
  let max = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) max = Math.max(max, s.selectionSet ? 1 + depthOf(s.selectionSet, fragments, memo, active) : 1);
    else if (s.kind === Kind.INLINE_FRAGMENT) max = Math.max(max, depthOf(s.selectionSet, fragments, memo, active));
    else max = Math.max(max, once(s.name.value, fragments, memo, active, (f) => depthOf(f.selectionSet, fragments, memo, active)));
  }
  return max;
}

/** `measure` of one named fragment, computed once per document; 0 for an unknown fragment or one already on the path. */
function once(name: string, fragments: Map<string, FragmentDefinitionNode>, memo: Map<string, number>, active: Set<string>, measure: (f: FragmentDefinitionNode) => number): number {
  const known = memo.get(name);
  if (known !== undefined) return known;
  const f = fragments.get(name);
  if (!f || active.has(name)) return 0;
  active.add(name);
  const value = measure(f);
  active.delete(name);
  memo.set(name, value);
  return value;
}

export function depthLimitRule(context: ValidationContext): ASTVisitor {
  const fragments = fragmentsOf(context.getDocument());
  return {
    OperationDefinition(op) {
      const depth = depthOf(op.selectionSet, fragments, new Map(), new Set());
      if (depth > QUERY_LIMITS.maxDepth) {
        context.reportError(tooComplex('maxDepth', `The query is ${depth} levels deep; at most ${QUERY_LIMITS.maxDepth} are allowed.`, { actual: depth }));
      }
    },
  };
}

export function aliasLimitRule(context: ValidationContext): ASTVisitor {
  let aliases = 0;
  return {
    Field(node) { if (node.alias) aliases++; },
    Document: {
      leave() {
        if (aliases > QUERY_LIMITS.maxAliases) {
          context.reportError(tooComplex('maxAliases', `The query uses ${aliases} aliases; at most ${QUERY_LIMITS.maxAliases} are allowed.`, { actual: aliases }));
        }
      },
    },
  };
}

type Variables = Record<string, unknown> | null | undefined;

function intArg(value: ValueNode | undefined, variables: Variables): number | null {
  if (!value) return null;
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) {
    const v = variables?.[value.name.value];
    return typeof v === 'number' ? v : null;
  }
  return null;
}

const SIZE_ARGS = ['first', 'last', 'limit'];

/** Names of the variables a document passes as a page size: the only variables a cost depends on. */
export function sizeVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(arg) {
      if (SIZE_ARGS.includes(arg.name.value) && arg.value.kind === Kind.VARIABLE) names.add(arg.value.name.value);
    },
  });
  return [...names].sort();
}

/**
 * Cost estimate: every field costs 1, times the number of items its parent lists. A field's
 * children are multiplied by its `first`/`last`/`limit` (or 20 for a connection without one,
 * or 5 for a plain list of objects). Throws query_too_complex for an oversized page.
 */
export function estimateCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Variables): number {
  const fragments = fragmentsOf(document);
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  if (!op) return 0;
  const root = op.operation === 'mutation' ? schema.getMutationType() : op.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  if (!root) return 0;

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
        total += once(s.name.value, fragments, memo, active, (f) => walk(f.selectionSet, (schema.getType(f.typeCondition.name.value) ?? named) as GraphQLOutputType));
        continue;
      }
      const field = fields[s.name.value];
      if (!field) { total += 1; continue; }
      let size: number | null = null;
      for (const arg of s.arguments ?? []) {
        if (!SIZE_ARGS.includes(arg.name.value)) continue;
        const n = intArg(arg.value, variables);
        if (n !== null && n > QUERY_LIMITS.maxPageSize) {
          throw tooComplex('maxPageSize', `${s.name.value}(${arg.name.value}: ${n}) asks for more than ${QUERY_LIMITS.maxPageSize} items; page through with cursors.`, { actual: n, field: s.name.value });
        }
        if (n !== null) size = Math.max(size ?? 0, n);
      }
      const returnNamed = getNamedType(field.type);
      const isConnection = returnNamed.name.endsWith('Connection');
      const isPlainList = isListType(getNullableType(field.type)) && !['edges', 'nodes'].includes(s.name.value) && !!s.selectionSet;
      const factor = size ?? (isConnection ? DEFAULT_PAGE : isPlainList ? ASSUMED_LIST : 1);
      total += 1 + (s.selectionSet ? factor * walk(s.selectionSet, field.type) : 0);
    }
    return total;
  };
  return walk(op.selectionSet, root);
}

import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/**
 * Query cost limits for /graphql and /workspace/graphql. Depth and aliases are validation rules
 * (static); tokens are a parse option; page sizes, the ids of `nodes` and the overall cost need
 * the variables, so they are checked just before execution (cost.ts). Every violation is a
 * GraphQL error with extensions.code `query_too_complex` and a `limit` naming which one. The
 * REST facade runs its own fixed, pre-validated documents and never passes through here.
 */
export const QUERY_LIMITS = {
  // A five-hop walk (subject → report → subject → report → subject → IP dimension → entity → IPs) is 15 deep.
  maxDepth: 16,
  maxAliases: 30,
  maxTokens: 3000,
  /** Largest `first`, `last` or `limit` one field may ask for. */
  maxPageSize: 100,
  /** Most ids one `nodes(ids:)` may look up. */
  maxNodeIds: 100,
  /** `__schema` fields per request: its answer never changes, one is all a client needs (introspection.ts). */
  maxSchemaFields: 1,
  /** Most reports one `reportBulk(reports:)` may write (each one an item of its answer, cost-counted). */
  maxBulkReports: 1000,
  /**
   * Budget of the estimate in cost.ts (a worst case: every list full, every text at its longest):
   * about 100 characters of answer per point (some 10 MB at most; the answer itself is capped at
   * 4 MiB by the size ceiling, ceilings.ts).
   */
  maxCost: 100_000,
  /**
   * Budget of the meter (ceilings.ts): units of work a request may actually do while it runs, one per row
   * read and per pair of subjects combined. The estimate bounds what the query's shape can return; this
   * bounds what the data makes it do (docs/security.md).
   */
  maxWorkUnits: 2_000_000,
} as const;

export type QueryLimit = keyof typeof QUERY_LIMITS;

export function tooComplex(limit: QueryLimit, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: 'query_too_complex', limit, maximum: QUERY_LIMITS[limit], ...extra },
  });
}

export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
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
function depthOf(
  set: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
  memo: Map<string, number>,
  active: Set<string>,
): number {
  if (!set) return 0;
  let max = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD)
      max = Math.max(max, s.selectionSet ? 1 + depthOf(s.selectionSet, fragments, memo, active) : 1);
    else if (s.kind === Kind.INLINE_FRAGMENT) max = Math.max(max, depthOf(s.selectionSet, fragments, memo, active));
    else
      max = Math.max(
        max,
        once(s.name.value, fragments, memo, active, (f) => depthOf(f.selectionSet, fragments, memo, active)),
      );
  }
  return max;
}

/** `measure` of one named fragment, computed once per document; 0 for an unknown fragment or one already on the path. */
export function once(
  name: string,
  fragments: Map<string, FragmentDefinitionNode>,
  memo: Map<string, number>,
  active: Set<string>,
  measure: (f: FragmentDefinitionNode) => number,
): number {
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
        context.reportError(
          tooComplex('maxDepth', `The query is ${depth} levels deep; at most ${QUERY_LIMITS.maxDepth} are allowed.`, {
            actual: depth,
          }),
        );
      }
    },
  };
}

export function aliasLimitRule(context: ValidationContext): ASTVisitor {
  let aliases = 0;
  return {
    Field(node) {
      if (node.alias) aliases++;
    },
    Document: {
      leave() {
        if (aliases > QUERY_LIMITS.maxAliases) {
          context.reportError(
            tooComplex(
              'maxAliases',
              `The query uses ${aliases} aliases; at most ${QUERY_LIMITS.maxAliases} are allowed.`,
              { actual: aliases },
            ),
          );
        }
      },
    },
  };
}

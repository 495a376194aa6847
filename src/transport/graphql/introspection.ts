import {
  GraphQLError,
  Kind,
  execute,
  getOperationAST,
  print,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ERRORS } from '../../errors.ts';
import { LruMap } from '../../platform/lru-map.ts';
import { QUERY_LIMITS, fragmentsOf, tooComplex } from './limits.ts';

/**
 * Introspection (`__schema`, `__type`) answers from the schema alone, and the schema never changes while the
 * process runs, so:
 * - its cost is what it returns: each introspection field is executed once per selection (and variables) and
 *   weighs its answer's size, CHARS_PER_POINT characters a point like every other field (cost.ts); it used to
 *   weigh 1 point per field, so 30 aliased walks of the whole schema cost 30 points and returned 4 MB;
 * - one `__schema` per request (`maxSchemaFields`);
 * - an operation made only of introspection is answered from the kept result of the same document,
 *   operation and variables, without executing again;
 * - on /graphql it needs an API key unless the operator allows it without (GRAPHQL_PUBLIC_INTROSPECTION).
 */
const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);
const CHARS_PER_POINT = 100;
const MAX_KEY_CHARS = 10_000;

/** Cost points of one introspection field selection: its answer's characters over CHARS_PER_POINT. */
const sizes = new WeakMap<GraphQLSchema, LruMap<string, number>>();
export function introspectionCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  field: FieldNode,
  variables: Record<string, unknown>,
): number {
  let known = sizes.get(schema);
  if (!known) sizes.set(schema, (known = new LruMap(256)));
  const key = `${print(field)}\u0000${JSON.stringify(variables)}`;
  const cached = key.length <= MAX_KEY_CHARS ? known.get(key) : undefined;
  if (cached !== undefined) return cached;
  const one: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: 'query' as OperationDefinitionNode['operation'],
        selectionSet: { kind: Kind.SELECTION_SET, selections: [field] },
      } as OperationDefinitionNode,
      ...fragmentsOf(document).values(),
    ],
  };
  const result = execute({ schema, document: one, variableValues: variables });
  // Introspection resolvers are synchronous; were one not, the field would weigh a full budget.
  const points =
    result instanceof Promise
      ? QUERY_LIMITS.maxCost
      : Math.max(1, Math.ceil(JSON.stringify(result.data ?? null).length / CHARS_PER_POINT));
  if (key.length <= MAX_KEY_CHARS) known.set(key, points);
  return points;
}

export function isIntrospectionField(name: string): boolean {
  return INTROSPECTION_FIELDS.has(name);
}

/** The root fields of an operation, fragments on the root type expanded. */
function rootFields(set: SelectionSetNode, document: DocumentNode, into: FieldNode[] = []): FieldNode[] {
  const fragments = fragmentsOf(document);
  const seen = new Set<string>();
  const walk = (s: SelectionSetNode) => {
    for (const sel of s.selections) {
      if (sel.kind === Kind.FIELD) into.push(sel);
      else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const f = fragments.get(sel.name.value);
        if (f) walk(f.selectionSet);
      }
    }
  };
  walk(set);
  return into;
}

/** `requireKey`: refuse introspection to a request without an API key (viewer). */
export function useIntrospection(opts: { requireKey: boolean }): Plugin {
  const answers = new WeakMap<DocumentNode, LruMap<string, ExecutionResult>>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const op = getOperationAST(args.document, args.operationName ?? undefined);
      if (op?.operation !== 'query') return;
      const fields = rootFields(op.selectionSet, args.document);
      const introspection = fields.filter((f) => isIntrospectionField(f.name.value));
      if (introspection.length === 0) return;
      const schemas = introspection.filter((f) => f.name.value === '__schema').length;
      if (schemas > QUERY_LIMITS.maxSchemaFields) {
        setResultAndStopExecution({
          errors: [
            tooComplex(
              'maxSchemaFields',
              `The query asks for __schema ${schemas} times; at most ${QUERY_LIMITS.maxSchemaFields} per request (its answer never changes).`,
              { actual: schemas },
            ),
          ],
        });
        return;
      }
      if (opts.requireKey && !(args.contextValue as { viewer?: unknown }).viewer) {
        setResultAndStopExecution({
          errors: [
            new GraphQLError(
              'Introspection needs an API key: send it in the X-API-Key header (the operator can allow it without one).',
              { extensions: { code: 'missing_api_key', http: { status: ERRORS.missing_api_key.status } } },
            ),
          ],
        });
        return;
      }
      // Only introspection (and __typename): the answer depends on the document and variables alone.
      if (!fields.every((f) => f.name.value === '__typename' || isIntrospectionField(f.name.value))) return;
      const key = `${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}`;
      if (key.length > MAX_KEY_CHARS) return;
      let perDocument = answers.get(args.document);
      if (!perDocument) answers.set(args.document, (perDocument = new LruMap(8)));
      const kept = perDocument.get(key);
      if (kept) {
        setResultAndStopExecution(kept);
        return;
      }
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return;
          const r = result as ExecutionResult;
          if (!r.errors?.length) perDocument.set(key, r);
        },
      };
    },
  };
}

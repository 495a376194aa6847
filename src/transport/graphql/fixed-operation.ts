import { execute, parse, validate, type DocumentNode, type GraphQLError } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { schema } from './schema.ts';
import { setWork, type RequestContext } from '../http/request-context.ts';
import { EXECUTION_CEILINGS, endAtDeadline, requestWork } from './ceilings.ts';
import { runAsWork } from '../../platform/work-budget.ts';
import { isAppError } from '../../errors.ts';
import { jitCompatible } from './jit-scope.ts';

/**
 * A fixed GraphQL document run directly against the shared schema: parsed, validated and, where graphql-jit can,
 * compiled once at start. Only the MCP tools that walk the analyst graph (explore_subject, search_reports) use it:
 * their answers are a selection of that graph's Prisma-backed types, which the graph's own resolvers and loaders
 * read best. Every other endpoint is an operation of the catalogue (operations/), which calls the domain directly
 * (docs/decisions/0042-one-catalogue-of-operations.md).
 *
 * Leaves of built-in scalars and enums are compiled without graphql-jit's serializers (disableLeafSerialization;
 * docs/decisions/0009-graphql-jit-for-fixed-operations.md): these documents are fixed and their values come from
 * our own typed code. Documents reaching Prisma-backed types that graphql-jit cannot plan run on graphql-js.
 */
export type Operation = { document: DocumentNode; name: string; compiled: CompiledQuery | null; mutation: boolean };

export function defineOperation(name: string, source: string): Operation {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0)
    throw new Error(`Fixed operation ${name} does not validate: ${errors.map((e) => e.message).join('; ')}`);
  if (document.definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'mutation'))
    return { document, name, compiled: null, mutation: true };
  // Reads of the analyst graph (the MCP tools' explore and search) reach Prisma-backed types: graphql-js, as on /graphql.
  if (!jitCompatible(schema, document)) return { document, name, compiled: null, mutation: false };
  const compiled = compileQuery(schema, document, undefined, { disableLeafSerialization: true });
  if (!isCompiledQuery(compiled))
    throw new Error(`Fixed operation ${name} does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  return { document, name, compiled, mutation: false };
}

/**
 * Runs `op` under the request's work meter (graphql/ceilings.ts, the same budget and deadline as /graphql): what its
 * resolvers read and combine is charged as it runs, every statement is refused once the work has ended, and the
 * answer is the coded refusal (query_too_complex with limit maxWorkUnits, or query_timeout), which REST answers with
 * its status and MCP as a tool error. A request that runs several operations (an MCP exchange) meters them together.
 */
export async function runOperation<T>(
  op: Operation,
  variables: Record<string, unknown>,
  context: RequestContext,
): Promise<T> {
  const work = context.work ?? requestWork(EXECUTION_CEILINGS, op.mutation, context.arrivedAt);
  setWork(context, work);
  const timer = endAtDeadline(work, EXECUTION_CEILINGS, op.mutation);
  try {
    const execution = runAsWork(work, async () =>
      op.compiled
        ? await op.compiled.query(undefined, context, variables)
        : await execute({ schema, document: op.document, contextValue: context, variableValues: variables }),
    );
    // A mutation's writes complete once started; its selection is cut at its next step (see ceilings.ts).
    const result = op.mutation ? await execution : await Promise.race([execution, work.ended]);
    if (result instanceof Error) {
      execution.catch(() => {}); // ended: it stops at its next step
      throw result;
    }
    if (result.errors?.length) throw work.endedBy ?? firstAppError(result.errors);
    return result.data as T;
  } finally {
    clearTimeout(timer);
  }
}

/** The resolver's own AppError when there is one; anything else is unexpected. */
function firstAppError(errors: readonly GraphQLError[]): unknown {
  for (const e of errors) if (isAppError(e.originalError)) return e.originalError;
  return errors[0]!.originalError ?? new Error(errors[0]!.message);
}

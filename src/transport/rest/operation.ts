import { execute, parse, validate, type DocumentNode, type GraphQLError } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { schema } from '../graphql/schema.ts';
import type { RequestContext } from '../http/request-context.ts';
import { isAppError } from '../../errors.ts';
import { jitCompatible } from '../graphql/jit-scope.ts';

/**
 * A fixed GraphQL operation run directly against the shared schema: parsed, validated and
 * compiled (graphql-jit) once at start, so a REST call pays for its resolvers only — never for
 * yoga's HTTP layer, parsing, or graphql-js's generic walk of a large selection set (the score
 * response has ~200 fields). Auth, validation and errors stay those of the resolvers.
 *
 * Leaves of built-in scalars and enums are compiled without graphql-jit's serializers (disableLeafSerialization):
 * its generated code allocated each leaf's error location and response path as call arguments, error or not
 * (docs/decisions/0009-graphql-jit-for-fixed-operations.md). These operations are fixed and
 * their values come from our own typed domain code, and the REST tests check each answer field by field;
 * /graphql, which takes any document, keeps the serializers.
 *
 * Mutations (rate, report) run on graphql-js instead: graphql-jit rebuilds `info.path` as a new
 * object for every resolver call, so Pothos' Prisma plugin cannot find the selection it planned
 * for rows nested in a list and loads them again — for `report`, one read per related subject
 * AFTER the write committed, where a dropped database connection turned a stored write into a
 * 500 (and a client's retry into a duplicate). graphql-js answers from the written row alone.
 */
export type Operation = { document: DocumentNode; name: string; compiled: CompiledQuery | null };

export function defineOperation(name: string, source: string): Operation {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`REST operation ${name} does not validate: ${errors.map((e) => e.message).join('; ')}`);
  if (document.definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'mutation')) return { document, name, compiled: null };
  // Reads of the analyst graph (the MCP tools' explore and search) reach Prisma-backed types: graphql-js, as on /graphql.
  if (!jitCompatible(schema, document)) return { document, name, compiled: null };
  const compiled = compileQuery(schema, document, undefined, { disableLeafSerialization: true });
  if (!isCompiledQuery(compiled)) throw new Error(`REST operation ${name} does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  return { document, name, compiled };
}

export async function runOperation<T>(op: Operation, variables: Record<string, unknown>, context: RequestContext): Promise<T> {
  const result = op.compiled
    ? await op.compiled.query(undefined, context, variables)
    : await execute({ schema, document: op.document, contextValue: context, variableValues: variables });
  if (result.errors?.length) throw firstAppError(result.errors);
  return result.data as T;
}

/** The resolver's own AppError when there is one; anything else is unexpected. */
function firstAppError(errors: readonly GraphQLError[]): unknown {
  for (const e of errors) if (isAppError(e.originalError)) return e.originalError;
  return errors[0]!.originalError ?? new Error(errors[0]!.message);
}

import { execute, parse, validate, type DocumentNode, type GraphQLError } from 'graphql';
import { schema } from '../graphql/schema.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { isAppError } from '../errors.ts';

/**
 * A fixed GraphQL operation run directly against the shared schema: parsed and validated
 * once at start, so a REST call pays for execution only, never for yoga's HTTP layer or
 * for parsing. Auth, validation and errors stay those of the resolvers.
 */
export type Operation = { document: DocumentNode; name: string };

export function defineOperation(name: string, source: string): Operation {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`REST operation ${name} does not validate: ${errors.map((e) => e.message).join('; ')}`);
  return { document, name };
}

export async function runOperation<T>(op: Operation, variables: Record<string, unknown>, context: GraphQLContext): Promise<T> {
  const result = await execute({ schema, document: op.document, variableValues: variables, contextValue: context });
  if (result.errors?.length) throw firstAppError(result.errors);
  return result.data as T;
}

/** The resolver's own AppError when there is one; anything else is unexpected. */
function firstAppError(errors: readonly GraphQLError[]): unknown {
  for (const e of errors) if (isAppError(e.originalError)) return e.originalError;
  return errors[0]!.originalError ?? new Error(errors[0]!.message);
}

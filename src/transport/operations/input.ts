import type { z } from 'zod';
import { camelToSnakePath, checkInput } from '../../domain/validation.ts';

/**
 * A wire input (a REST body, MCP arguments, a bulk line; already renamed to camelCase) checked by the domain's
 * schema; every problem named in wire (snake_case) names. A JSON body and each line of a bulk body go through here,
 * so both are judged alike.
 * `extra`: problems of fields the schema does not hold (a bulk line's idempotency_key), reported with its own.
 */
export function wireInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  problem?: string,
  extra: Array<{ field: string; message: string }> = [],
): z.output<S> {
  return checkInput(schema, input, { field: camelToSnakePath, extra, ...(problem ? { problem } : {}) });
}

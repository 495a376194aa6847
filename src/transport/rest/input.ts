import type { z } from 'zod';
import { invalidRequest } from '../../errors.ts';
import { camelToSnakePath, toDetails } from '../../domain/validation.ts';

/**
 * A REST input (already renamed to camelCase) checked by the domain's schema; every problem named in wire
 * (snake_case) names. A JSON body and each line of a bulk body go through here, so both are judged alike.
 * `extra`: problems of fields the schema does not hold (a bulk line's idempotency_key), reported with its own.
 */
export function restInput<S extends z.ZodType>(schema: S, input: unknown, problem?: string, extra: Array<{ field: string; message: string }> = []): z.output<S> {
  const checked = schema.safeParse(input);
  const details = checked.success ? [] : toDetails(checked.error).map((d) => ({ field: camelToSnakePath(d.field), message: d.message }));
  if (!checked.success || extra.length) throw invalidRequest([...details, ...extra], problem);
  return checked.data;
}

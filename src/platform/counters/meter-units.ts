import type { MeterCall } from './types.ts';

/** A call's units, checked: a count of 0, a fraction or a negative number would let a caller count wrongly. */
export function meterUnits(call: MeterCall): number {
  const units = call.units ?? 1;
  if (!Number.isSafeInteger(units) || units < 1)
    throw new RangeError(`meter units must be a positive integer: ${units}`);
  return units;
}

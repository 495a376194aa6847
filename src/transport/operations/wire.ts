/**
 * Where each property of a wire answer takes its value from. An operation's output schema is the JSON Schema of its
 * answer (wire names, snake_case), as the OpenAPI document publishes it; each schema node may also say how its
 * value is read from the domain object of its parent. The answer is then compiled from the schema alone
 * (compile.ts): no shaping code, no second description of the same fields.
 *
 * The default needs no annotation: a property `daily_limit` reads the parent's `dailyLimit`. The annotation is a
 * non-enumerable property of the schema node, so the published document (JSON.stringify, the contract tests) never
 * sees it, and a node spread into a new object loses it (a reused node keeps its own).
 */
const SOURCE = Symbol('wire source');
const PICK = Symbol('wire branch');

/** A dotted path from the parent's value ('' : the parent itself), or a function of the parent's value. */
export type Source = string | ((parent: never) => unknown);

/** The snake_case wire name's camelCase domain name: lookups_10m → lookups10m. */
export function domainName(wire: string): string {
  return wire.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `node`, reading its value through `source` instead of the default (the camelCase of its wire name). */
export function from<T extends object>(source: Source, node: T): T {
  const copy = Array.isArray(node) ? node : { ...node };
  Object.defineProperty(copy, SOURCE, { value: source, enumerable: false });
  // A spread loses the branch chooser of a oneOf node: keep it.
  const pick = (node as Record<symbol, unknown>)[PICK];
  if (pick) Object.defineProperty(copy, PICK, { value: pick, enumerable: false });
  return copy;
}

/** `node` whose value is its parent's own: regroups fields of one domain object under a wire sub-object. */
export const same = <T extends object>(node: T): T => from('', node);

/** A oneOf node whose branch for a value is `pick(value)` (its index in oneOf). */
export function oneOfBy<T extends { oneOf: unknown[] }>(pick: (value: never) => number, node: T): T {
  const copy = { ...node };
  Object.defineProperty(copy, PICK, { value: pick, enumerable: false });
  return copy;
}

export function sourceOf(node: object): Source | undefined {
  return (node as Record<symbol, Source | undefined>)[SOURCE];
}

export function branchOf(node: object): ((value: unknown) => number) | undefined {
  return (node as Record<symbol, ((value: unknown) => number) | undefined>)[PICK];
}

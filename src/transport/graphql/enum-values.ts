/**
 * A closed vocabulary of the domain (`{ code, meaning }` entries) as the values of a GraphQL enum: each value named
 * and valued as its code, so the enum reads and writes the same strings as REST and the database, and described by
 * its meaning. Used by both schemas' builders (/graphql and /workspace/graphql).
 */
export function enumValues<const V extends string>(entries: ReadonlyArray<{ code: V; meaning: string }>) {
  return Object.fromEntries(entries.map((e) => [e.code, { value: e.code, description: e.meaning }])) as Record<
    V,
    { value: V; description: string }
  >;
}

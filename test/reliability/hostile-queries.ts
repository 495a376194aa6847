import {
  buildClientSchema,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isLeafType,
  parse,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { schema as servedSchema } from '../../src/transport/graphql/schema.ts';
import { estimateCost } from '../../src/transport/graphql/cost.ts';
import { QUERY_LIMITS } from '../../src/transport/graphql/limits.ts';

/**
 * Builds, from the live schema (the server's own introspection answer), the most expensive valid requests the
 * cost model admits: for a root field, a nested walk chosen at random (a seeded generator, so a failure can be
 * replayed from its seed) down object and list fields, every list at its largest page, then repeated under
 * aliases until the next copy would pass the budget (by the server's own estimate).
 */
export type HostileRequest = {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  /** The JSON body as sent, when JSON.stringify cannot build it (variables nested deeper than its stack). */
  body?: string;
};

/** mulberry32: a small seeded generator. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Arguments at their most expensive valid values, or null when the field needs one this generator cannot give. */
function argumentsOf(field: GraphQLField<unknown, unknown>): string | null {
  const given: string[] = [];
  for (const arg of field.args) {
    const type = getNamedType(arg.type).name;
    if (arg.name === 'first' && type === 'Int') given.push('first: 100');
    else if (arg.name === 'limit' && type === 'Int')
      continue; // each list's default is its largest page
    else if (arg.type.toString().endsWith('!')) return null; // required and unknown: skip the field
  }
  return given.length ? `(${given.join(', ')})` : '';
}

function walk(type: GraphQLObjectType, depth: number, random: () => number): string {
  const fields = Object.values(type.getFields());
  const picked: string[] = [];
  for (const f of fields) {
    const named = getNamedType(f.type);
    const args = argumentsOf(f);
    if (args === null) continue;
    if (isLeafType(named)) {
      if (random() < 0.6) picked.push(f.name);
      continue;
    }
    if (depth <= 0 || !isObjectType(named) || random() < 0.5) continue;
    const inner = walk(named, depth - (isListType(getNullableType(f.type)) ? 2 : 1), random);
    if (inner) picked.push(`${f.name}${args} { ${inner} }`);
  }
  if (!picked.length) {
    const leaf = fields.find((f) => isLeafType(getNamedType(f.type)) && !f.args.length);
    if (leaf) picked.push(leaf.name);
  }
  return picked.join(' ');
}

/** `make(n)` for the largest n (1..max) whose estimate stays within the budget, or null. */
function largest(make: (n: number) => HostileRequest, max: number): HostileRequest | null {
  let best: HostileRequest | null = null;
  for (let n = 1; n <= max; n++) {
    const candidate = make(n);
    try {
      if (estimateCost(servedSchema, parse(candidate.query), null, candidate.variables).cost > QUERY_LIMITS.maxCost)
        break;
    } catch {
      break;
    }
    best = candidate;
  }
  return best;
}

/**
 * Eight requests, one of each class of attack: three walks of the analyst graph grown to the budget, the audit's
 * `nodes` request plain and through a fragment one level deeper, introspection at its most, a `report` mutation
 * whose selection walks the tally from a subject linked by thousands of reports (`heavyKey`, an email subject), and
 * variables nested far deeper than the bound.
 */
export function hostileRequests(
  introspection: IntrospectionQuery,
  seed: number,
  ids: { subjects: string[]; heavyKey: string },
): HostileRequest[] {
  const live: GraphQLSchema = buildClientSchema(introspection);
  const random = seeded(seed);
  const query = live.getQueryType()!;
  const requests: HostileRequest[] = [];
  // Root walks over the analyst graph, grown under aliases to the budget: the deepest walk of which one copy
  // fits, as many copies as fit. Three of them, from the roots in turn.
  const roots = ['reports', 'topSubjects', 'subjects'].filter((n) => query.getFields()[n]);
  for (let i = 0; requests.length < 3 && i < 40; i++) {
    const name = roots[i % roots.length]!;
    const field = query.getFields()[name]!;
    const named = getNamedType(field.type);
    const args = argumentsOf(field);
    if (args === null || !isObjectType(named)) continue;
    for (let depth = 6; depth >= 1; depth--) {
      const body = walk(named, depth, random);
      const r = largest(
        (n) => ({
          name: `${name} walk (depth ${depth}) ×${n}`,
          query: `{ ${Array.from({ length: n }, (_, k) => `a${k}: ${name}${args} { ${body} }`).join(' ')} }`,
        }),
        QUERY_LIMITS.maxAliases,
      );
      if (r) {
        requests.push(r);
        break;
      }
    }
  }
  // The audit's: cheap by shape, expensive by data.
  requests.push({
    name: 'nodes ×100 relatedSubjects (audit)',
    query:
      'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Subject { relatedSubjects(limit: 1) { sharedReports } } } }',
    variables: { ids: ids.subjects.slice(0, QUERY_LIMITS.maxNodeIds) },
  });
  // The same through a fragment, nested one level deeper.
  requests.push({
    name: 'nodes ×100 relatedSubjects² (fragment)',
    query:
      'fragment R on Subject { relatedSubjects { sharedReports subject { relatedSubjects(limit: 1) { sharedReports } } } } query($ids: [ID!]!) { nodes(ids: $ids) { ...R } }',
    variables: { ids: ids.subjects.slice(0, QUERY_LIMITS.maxNodeIds) },
  });
  // Introspection at its most: the whole schema (one __schema), plus every type by name under aliases.
  requests.push({
    name: 'introspection',
    query: `{ __schema { types { name fields { name args { name type { name } } type { name ofType { name } } } } } ${Array.from(
      { length: QUERY_LIMITS.maxAliases },
      (_, i) => `t${i}: __type(name: "${Object.keys(live.getTypeMap())[i % 40]}") { name fields { name } }`,
    ).join(' ')} }`,
  });
  // A write whose selection walks the tally: about a subject that thousands of reports link, and on to each of
  // its partners (the write is stored; its selection is what the meter and the deadline cut).
  requests.push({
    name: 'report mutation with a heavy selection',
    query: `mutation { report(input: { kind: email, key: "${ids.heavyKey}", outcomeCode: spam }, idempotencyKey: "hostile-${seed}") {
      report { subject { relatedSubjects { subject { relatedSubjects { sharedReports } } } } } } }`,
  });
  // Variables nested far past the bound (graphql/variables.ts): refused before any walk of them.
  const depth = 30_000;
  requests.push({
    name: `variables nested ${depth} deep`,
    query: 'query($x: String) { __typename }',
    body: `{"query":"query($x: String) { __typename }","variables":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
  });
  return requests.slice(0, 8);
}

import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { ODD_PIECES } from './arbitraries.ts';

/**
 * Random GraphQL documents over the real schema: real and misspelt fields, aliases, arguments
 * of the right and wrong types (as literals or variables with JSON values), inline and named
 * fragments, directives, any operation type. Built from a seed by a small PRNG, so a failure
 * is replayed from the document printed with it (fast-check shrinks the seed only).
 */

function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  };
}
type Rng = ReturnType<typeof rng>;

function oddText(r: Rng): string {
  let s = '';
  for (let i = r.int(0, 4); i > 0; i--)
    s += r.chance(0.5) ? r.pick(ODD_PIECES) : String.fromCodePoint(r.int(0, 0x10ffff));
  return s;
}

/** A JSON value for a variable of `type` (sometimes of another type). */
function jsonFor(type: GraphQLInputType, r: Rng, noise: number, depth = 0): unknown {
  if (r.chance(0.08 * noise))
    return r.pick([null, 0, -1, 2 ** 31, 1.5, '', 'x', true, [], {}, [1], { a: 1 }, oddText(r)]);
  if (isNonNullType(type)) return jsonFor(type.ofType, r, noise, depth);
  if (isListType(type))
    return depth > 3 ? [] : Array.from({ length: r.int(0, 3) }, () => jsonFor(type.ofType, r, noise, depth + 1));
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(type.getFields()))
      if (isNonNullType(f.type) || r.chance(0.4)) out[f.name] = depth > 3 ? null : jsonFor(f.type, r, noise, depth + 1);
    if (r.chance(0.1 * noise)) out[r.pick(['unknownField', '__proto__', 'Kind'])] = 1;
    return out;
  }
  if (isEnumType(type)) return r.chance(1 - 0.2 * noise) ? r.pick(type.getValues()).name : oddText(r);
  switch (type.name) {
    case 'Int':
      return r.pick(
        noise ? [0, 1, 5, 20, 100, 101, -1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 1.5, 1e300] : [0, 1, 5, 20, 100],
      );
    case 'Float':
      return r.pick([0, -0.5, 1e308, 1]);
    case 'Boolean':
      return r.chance(0.5);
    case 'DateTime':
      return noise === 0
        ? r.pick(['2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'])
        : r.pick([
            '2026-01-01T00:00:00Z',
            '2026-11-23T10:04:00.000+02:00',
            'yesterday',
            '',
            '-271821-04-20T00:00:00Z',
            '+275760-09-13T00:00:00Z',
            '0001-01-01T00:00:00Z',
            0,
            1e15,
          ]);
    case 'ID':
      return r.pick([
        '',
        'UmVwb3J0OjE',
        'U3ViamVjdDox',
        'UmF0aW5nOjE',
        Buffer.from(`Report:${r.int(0, 2 ** 40)}`).toString('base64url'),
        Buffer.from(`${r.pick(['ApiKey', 'Account', 'Workspace', 'WebSession', 'Node', '__Schema'])}:1`).toString(
          'base64url',
        ),
        oddText(r),
      ]);
    default:
      return r.pick([
        '8.8.8.8',
        '::ffff:1.2.3.4',
        'fe80::1%eth0',
        '01.2.3.4',
        'ipaddress',
        'domain',
        'example.com',
        'AS13335',
        'asn',
        'subnet',
        'country',
        'US',
        'spam',
        '',
        oddText(r),
      ]);
  }
}

/** A GraphQL literal for a value (JSON-shaped input becomes GraphQL syntax; enums unquoted). */
function literal(value: unknown, type: GraphQLInputType | null): string {
  const named = type ? getNamedType(type) : null;
  const nullable = type && isNonNullType(type) ? type.ofType : type;
  if (value === null) return 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => literal(v, nullable && isListType(nullable) ? nullable.ofType : null)).join(', ')}]`;
  if (typeof value === 'object') {
    const fields = named && isInputObjectType(named) ? named.getFields() : {};
    return `{ ${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${/^[_A-Za-z][_0-9A-Za-z]*$/.test(k) ? k : 'bad'}: ${literal(v, fields[k]?.type ?? null)}`)
      .join(', ')} }`;
  }
  if (typeof value === 'string' && named && isEnumType(named) && /^[_A-Za-z][_0-9A-Za-z]*$/.test(value)) return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '0';
  return JSON.stringify(value); // strings (JSON escapes are GraphQL escapes) and booleans
}

type Ctx = {
  r: Rng;
  noise: number;
  schema: GraphQLSchema;
  vars: string[];
  values: Record<string, unknown>;
  fragments: string[];
  budget: number;
};

function argsOf(args: readonly GraphQLArgument[], c: Ctx): string {
  const parts: string[] = [];
  for (const a of args) {
    if (!isNonNullType(a.type) && !c.r.chance(0.35)) continue;
    if (c.r.chance(0.05 * c.noise)) continue; // a required argument missing
    if (c.r.chance(0.4)) {
      const name = `v${c.vars.length}`;
      const declared = c.r.chance(1 - 0.1 * c.noise)
        ? String(a.type)
        : c.r.pick(['String', 'Int', '[String!]!', 'Boolean!', 'Nope']);
      c.vars.push(`$${name}: ${declared}`);
      c.values[name] = jsonFor(a.type, c.r, c.noise);
      parts.push(`${a.name}: $${name}`);
    } else {
      parts.push(`${a.name}: ${literal(jsonFor(a.type, c.r, c.noise), a.type)}`);
    }
  }
  if (c.r.chance(0.05 * c.noise)) parts.push(`${c.r.pick(['first', 'nope', 'id'])}: ${c.r.int(-5, 500)}`);
  return parts.length ? `(${parts.join(', ')})` : '';
}

function selection(type: GraphQLNamedType, depth: number, c: Ctx): string {
  if (isLeafType(type)) return '';
  const r = c.r;
  const items: string[] = [];
  if (isInterfaceType(type) || isUnionType(type)) {
    for (const t of c.schema.getPossibleTypes(type))
      if (r.chance(0.5)) items.push(`... on ${t.name} ${selection(t, depth, c) || '{ __typename }'}`);
    if (isInterfaceType(type)) items.push('__typename');
  }
  if (isObjectType(type) || isInterfaceType(type)) {
    const fields = Object.values(type.getFields());
    for (let n = r.int(1, 4); n > 0 && c.budget > 0; n--, c.budget--) {
      const f = r.pick(fields);
      const alias = r.chance(0.15) ? `${r.pick(['a', 'b', 'x'])}${r.int(0, 40)}: ` : '';
      const named = getNamedType(f.type);
      const sub = depth <= 0 || isLeafType(named) ? '' : selection(named, depth - 1, c);
      const directive = r.chance(0.05 * c.noise)
        ? r.pick([' @include(if: true)', ' @skip(if: false)', ' @skip(if: $nope)', ' @deprecated', ' @include'])
        : '';
      items.push(
        `${alias}${f.name}${argsOf(f.args, c)}${directive}${!isLeafType(named) && !sub && r.chance(0.9) ? ' { __typename }' : ` ${sub}`}`,
      );
    }
    if (r.chance(0.05 * c.noise))
      items.push(
        r.pick([
          'nope',
          'keyHash',
          'secret',
          'passwordHash',
          'workspaceId',
          '__schema { types { name } }',
          '__type(name: "ApiKey") { fields { name } }',
        ]),
      );
    if (r.chance(0.05) && c.fragments.length < 5) {
      const name = `F${c.fragments.length}`;
      c.fragments.push(`fragment ${name} on ${type.name} { __typename }`);
      items.push(`...${name}`);
    }
  }
  return items.length ? `{ ${items.join(' ')} }` : '';
}

/** A document and its variables from a seed. */
export function documentFromSeed(
  schema: GraphQLSchema,
  seed: number,
): { query: string; variables: Record<string, unknown> } {
  const r = rng(seed);
  const c: Ctx = { r, noise: r.chance(0.5) ? 0 : 1, schema, vars: [], values: {}, fragments: [], budget: 40 };
  const op = r.chance(0.75) ? 'query' : r.chance(1 - 0.2 * c.noise) ? 'mutation' : 'subscription';
  const root = op === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const body = selection(root, r.int(0, 5), c) || '{ __typename }';
  const vars = c.vars.length ? `(${c.vars.join(', ')})` : '';
  const name = r.chance(0.5) ? ` Op${r.int(0, 9)}` : '';
  let query = `${op}${name}${vars} ${body}\n${c.fragments.join('\n')}`;
  if (r.chance(0.05 * c.noise)) query = query.slice(0, r.int(0, query.length)); // cut anywhere
  if (r.chance(0.03 * c.noise)) query += ` query Second { __typename }`;
  return { query, variables: c.values };
}

export const graphqlDocument = (schema: GraphQLSchema) =>
  fc.integer().map((seed) => ({ seed, ...documentFromSeed(schema, seed) }));

/**
 * The GraphQL document the "score GraphQL" scenario sends. Preferred: the very operation the
 * REST facade executes for POST /risk_api/score/ (any export of src/transport/rest/*.ts that is an
 * Operation named 'score'), so REST and GraphQL are compared on identical work. Otherwise a
 * plain `score(ip:)` selection of every argument-free field two levels deep, read from the
 * running server by introspection. When Query.score does not exist, the probe sees a
 * validation error and the scenario is reported as not available.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { print, type DocumentNode } from 'graphql';

const REST_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'transport', 'rest');
const FALLBACK = 'query Score($ip: String!) { score(ip: $ip) { __typename } }';

type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
type Field = { name: string; args: Array<{ type: TypeRef }>; type: TypeRef };
const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';

async function restScoreOperation(): Promise<string | null> {
  for (const file of readdirSync(REST_DIR).filter((f) => f.endsWith('.ts'))) {
    const mod = (await import(pathToFileURL(path.join(REST_DIR, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      const op = value as { name?: unknown; document?: DocumentNode } | null;
      if (op && typeof op === 'object' && op.name === 'score' && op.document?.kind === 'Document') return print(op.document);
    }
  }
  return null;
}

function named(t: TypeRef): TypeRef {
  return t.ofType ? named(t.ofType) : t;
}

async function introspect(graphqlUrl: string, apiKey: string, typeName: string): Promise<Field[] | null> {
  const res = await fetch(graphqlUrl, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ query: `{ __type(name: ${JSON.stringify(typeName)}) { fields { name args { type { ${TYPE_REF} } } type { ${TYPE_REF} } } } }` }),
  });
  const json = (await res.json()) as { data?: { __type: { fields: Field[] | null } | null } };
  return json.data?.__type?.fields ?? null;
}

/** Every field without required arguments; objects recurse up to `depth` levels. */
async function selection(graphqlUrl: string, apiKey: string, typeName: string, depth: number): Promise<string> {
  const fields = (await introspect(graphqlUrl, apiKey, typeName)) ?? [];
  const parts: string[] = [];
  for (const f of fields) {
    if (f.args.some((a) => a.type.kind === 'NON_NULL')) continue;
    const t = named(f.type);
    if (t.kind === 'SCALAR' || t.kind === 'ENUM') parts.push(f.name);
    else if (t.kind === 'OBJECT' && depth > 1 && t.name) {
      const inner = await selection(graphqlUrl, apiKey, t.name, depth - 1);
      if (inner) parts.push(`${f.name} { ${inner} }`);
    }
  }
  return parts.join(' ');
}

export async function scoreGraphQLQuery(graphqlUrl: string, apiKey: string): Promise<{ query: string; source: string }> {
  const rest = await restScoreOperation().catch(() => null);
  if (rest) return { query: rest, source: 'the REST facade\'s score operation' };
  const score = (await introspect(graphqlUrl, apiKey, 'Query'))?.find((f) => f.name === 'score');
  if (!score) return { query: FALLBACK, source: 'placeholder (Query.score absent)' };
  const t = named(score.type);
  const argType = named(score.args[0]?.type ?? { kind: 'SCALAR', name: 'String', ofType: null }).name ?? 'String';
  const fields = t.kind === 'OBJECT' && t.name ? await selection(graphqlUrl, apiKey, t.name, 2) : '';
  return { query: `query Score($ip: ${argType}!) { score(ip: $ip)${fields ? ` { ${fields} }` : ''} }`, source: 'introspection' };
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Checks live HTTP answers against the committed openapi.json: the status is documented for the route, the body
 * matches its schema (JSON, or every NDJSON line) with NO undocumented property (every object of the document is
 * read as closed here), the documented required headers are there and valid, and none of the service's own headers
 * appears where the document does not list it. Used by every REST call of test/helpers/server.ts and by
 * test/integration/openapi-contract.test.ts.
 */
type Doc = { paths: Record<string, Record<string, Operation>>; components: { headers: Record<string, Header> } };
type Operation = { responses: Record<string, Response> };
type Response = { headers?: Record<string, Header | { $ref: string }>; content?: Record<string, { schema: object }> };
type Header = { required?: boolean; schema: { type?: string } };

export const OPENAPI_PATH = path.resolve(import.meta.dirname, '../../openapi.json');
const raw = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Doc;

/** Response headers the service sets itself: where one appears, the document must list it. */
const OWN_HEADERS = [
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'retry-after',
  'idempotent-replayed',
  'allow',
  'x-next-cursor',
  'link',
  'content-disposition',
  'cache-control',
  'www-authenticate',
];

/** Every schema object with properties (and no $ref beside them) becomes closed: undocumented properties fail. */
function closed(node: unknown, key = ''): unknown {
  if (Array.isArray(node)) return node.map((n) => closed(n));
  if (typeof node !== 'object' || node === null || key === 'example' || key === 'examples') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = closed(v, k);
  if ('properties' in out && !('$ref' in out) && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ allErrors: true, strictSchema: false, strictTypes: false });
addFormats(ajv);
ajv.addSchema({ ...(closed(raw) as object), $id: 'openapi.json' });
const validators = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validator(...at: string[]): ValidateFunction {
  const ref = `openapi.json#/${pointer(...at)}`;
  let v = validators.get(ref);
  if (!v) validators.set(ref, (v = ajv.compile({ $ref: ref })));
  return v;
}

/** The document's path for a request path: exact, or the other spelling of its trailing slash (both are served). */
export function documentedPath(requestPath: string): string | undefined {
  const bare = requestPath.replace(/\/$/, '');
  return [requestPath, bare, `${bare}/`].find((p) => raw.paths[p]);
}

export type Answer = { method: string; path: string; status: number; headers: Headers; text: string };

function resolveHeader(h: Header | { $ref: string }): Header {
  return '$ref' in h ? raw.components.headers[h.$ref.split('/').pop()!]! : h;
}

function checkHeaders(documented: Response['headers'] = {}, actual: Headers, where: string): string[] {
  const problems: string[] = [];
  const names = new Map(Object.entries(documented).map(([name, h]) => [name.toLowerCase(), resolveHeader(h)]));
  for (const [name, header] of names) {
    const value = actual.get(name);
    if (value === null) {
      if (header.required) problems.push(`${where}: header ${name} is required but missing`);
      continue;
    }
    const typed = header.schema.type === 'integer' ? (/^-?\d+$/.test(value) ? Number(value) : value) : value;
    const v = ajv.compile(header.schema);
    if (!v(typed)) problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(v.errors)}`);
  }
  for (const name of OWN_HEADERS)
    if (actual.has(name) && !names.has(name)) problems.push(`${where}: header ${name} is sent but not documented`);
  return problems;
}

function checkBody(content: Response['content'], at: string[], answer: Answer, where: string): string[] {
  const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (!content) return answer.text === '' ? [] : [`${where}: a body is sent but none is documented`];
  if (!content[type]) return [`${where}: content-type ${type} is not documented (${Object.keys(content).join(', ')})`];
  const validate = validator(...at, 'content', type, 'schema');
  const values =
    type === 'application/json'
      ? [answer.text]
      : type === 'application/x-ndjson'
        ? answer.text.split('\n').filter((l) => l !== '')
        : null;
  if (!values) return validate(answer.text) ? [] : [`${where}: ${ajv.errorsText(validate.errors)}`];
  const problems: string[] = [];
  for (const text of values) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      problems.push(`${where}: not JSON: ${text.slice(0, 200)}`);
      continue;
    }
    if (!validate(value))
      problems.push(`${where}: ${ajv.errorsText(validate.errors, { separator: '; ' })} in ${text.slice(0, 300)}`);
  }
  return problems;
}

/** Problems of one answer (empty when it matches the document); undefined when the path is none of the document's. */
export function contractProblems(answer: Answer): string[] | undefined {
  const route = documentedPath(answer.path);
  const where = `${answer.method} ${answer.path} → ${answer.status}`;
  if (!route) {
    if (!answer.path.startsWith('/risk_api/')) return undefined;
    // Unknown paths under /risk_api/ answer the documented error body.
    const v = validator('components', 'schemas', 'Error');
    return answer.status === 404 && v(JSON.parse(answer.text))
      ? []
      : [`${where}: an unknown path must answer 404 with the Error body`];
  }
  const methods = raw.paths[route]!;
  const method = answer.method.toLowerCase();
  // Another method on a documented path: every operation of the path documents its 405.
  const op =
    methods[method] ?? (answer.status === 405 ? Object.values(methods).find((o) => o.responses?.['405']) : undefined);
  const opKey = methods[method] ? method : Object.keys(methods).find((m) => methods[m] === op);
  if (!op || !opKey) return [`${where}: ${answer.method} is not documented for ${route}`];
  const response = op.responses[String(answer.status)];
  if (!response)
    return [`${where}: status ${answer.status} is not documented (${Object.keys(op.responses).join(', ')})`];
  return [
    ...checkHeaders(response.headers, answer.headers, where),
    ...checkBody(response.content, ['paths', route, opKey, 'responses', String(answer.status)], answer, where),
  ];
}

/** Throws when an answer breaks the contract (so the test making the call fails there). */
export function assertContract(answer: Answer): void {
  const problems = contractProblems(answer);
  if (problems?.length) throw new Error(`The answer does not match openapi.json:\n${problems.join('\n')}`);
}

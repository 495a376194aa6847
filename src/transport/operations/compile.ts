import { branchOf, domainName, sourceOf } from './wire.ts';

/**
 * Compiles an output schema (wire.ts) into two functions of the operation's domain result: `serialize`, its answer
 * as JSON text in one pass (no intermediate object, no generic walk: the REST body), and `shape`, the same answer
 * as a plain object (what MCP returns as structuredContent). Both read the domain object through the schema's
 * sources, emit exactly the schema's properties in the schema's order, and agree with JSON.stringify of each other
 * (test/unit/operation-compile.test.ts); docs/decisions/0041-answers-compiled-from-the-output-schema.md says why
 * this is generated code and not fast-json-stringify.
 *
 * The schema subset is the one the answers use: objects (properties, required), records (additionalProperties),
 * arrays (items), oneOf with a branch chooser, const, and scalars (string, integer, number, boolean, each nullable).
 */
export type Compiled<R> = { serialize: (result: R) => string; shape: (result: R) => Record<string, unknown> };

type Node = Record<string, unknown>;

export function compileOutput<R>(schema: object): Compiled<R> {
  return {
    serialize: build(schema as Node, serializerOf) as (r: R) => string,
    shape: build(schema as Node, shaperOf) as (r: R) => Record<string, unknown>,
  };
}

/** One generator: the expression of a node's output for the value held in the variable `v`. */
type Generator = (node: Node, v: string, unit: Unit) => string;
type Unit = { functions: string[]; sources: unknown[]; pickers: unknown[]; generator: Generator };

function build(schema: Node, generator: Generator): (value: unknown) => unknown {
  const unit: Unit = { functions: [], sources: [], pickers: [], generator };
  const root = generator(schema, 'v', unit);
  const code = `${unit.functions.join('\n')}\nreturn function answer(v) { return ${root}; };`;
  return new Function('sources', 'pickers', 'num', 'bool', 'iso', 'isoJson', code)(
    unit.sources,
    unit.pickers,
    num,
    bool,
    iso,
    isoJson,
  );
}

const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? `${x}` : 'null');
const bool = (x: unknown) => (x === true ? 'true' : x === false ? 'false' : 'null');
const iso = (x: unknown) => (x instanceof Date ? x.toISOString() : x);
/** JSON.stringify of a date-time value, without JSON.stringify's walk for a Date (its toJSON): the same text. */
const isoJson = (x: unknown) =>
  x instanceof Date ? (Number.isNaN(x.getTime()) ? 'null' : `"${x.toISOString()}"`) : JSON.stringify(x);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The expression reading a property's value from its parent's value `v`. */
function access(node: Node, wireName: string, v: string, unit: Unit): string {
  const source = sourceOf(node);
  if (typeof source === 'function') {
    unit.sources.push(source);
    return `sources[${unit.sources.length - 1}](${v})`;
  }
  const path = source === undefined ? [domainName(wireName)] : source === '' ? [] : source.split('.');
  return v + path.map((p) => (IDENTIFIER.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('');
}

/** A oneOf branch's value: the value itself, or what the branch's source reads from it. */
function branch(node: Node, unit: Unit): string {
  return sourceOf(node) === undefined ? 'v' : `(${access(node, '', 'v', unit)})`;
}

/** A generated function of one value, named by its index; returns its name. */
function fn(unit: Unit, body: string): string {
  const name = `f${unit.functions.length}`;
  unit.functions.push(`function ${name}(v) {\n${body}\n}`);
  return name;
}

function kind(node: Node): 'const' | 'object' | 'record' | 'array' | 'oneOf' | 'number' | 'boolean' | 'string' {
  if ('const' in node) return 'const';
  if (Array.isArray(node.oneOf)) return 'oneOf';
  const types = (Array.isArray(node.type) ? node.type : [node.type]).filter((t) => t !== 'null');
  const type = types[0] ?? (Array.isArray(node.enum) ? typeof node.enum.find((e) => e !== null) : undefined);
  if (type === 'object') return node.properties ? 'object' : 'record';
  if (type === 'array') return 'array';
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'string') return 'string';
  throw new Error(`output schema: no serializer for ${JSON.stringify(node)}`);
}

const nullable = (node: Node) => Array.isArray(node.type) && node.type.includes('null');

function chooser(node: Node, unit: Unit): string {
  const pick = branchOf(node);
  if (!pick) throw new Error('output schema: a oneOf needs its branch chooser (oneOfBy)');
  unit.pickers.push(pick);
  return `pickers[${unit.pickers.length - 1}](v)`;
}

const serializerOf: Generator = (node, v, unit) => {
  switch (kind(node)) {
    case 'const':
      return JSON.stringify(JSON.stringify(node.const));
    case 'number':
      return `num(${v})`;
    case 'boolean':
      return `bool(${v})`;
    case 'string':
      // A nullable value the domain leaves undefined is null on the wire, as GraphQL answered it.
      if (node.format === 'date-time') return nullable(node) ? `isoJson(${v} ?? null)` : `isoJson(${v})`;
      return nullable(node) ? `JSON.stringify(${v} ?? null)` : `JSON.stringify(${v})`;
    case 'array': {
      const item = serializerOf(node.items as Node, 'x', unit);
      return `${fn(unit, `if (v == null) return 'null';\nlet o = '[';\nfor (let i = 0; i < v.length; i++) { const x = v[i]; if (i > 0) o += ','; o += ${item}; }\nreturn o + ']';`)}(${v})`;
    }
    case 'record': {
      const value = serializerOf(node.additionalProperties as Node, 'x', unit);
      return `${fn(unit, `if (v == null) return 'null';\nlet o = '{';\nfor (const k of Object.keys(v)) { const x = v[k]; if (x === undefined) continue; if (o.length > 1) o += ','; o += JSON.stringify(k) + ':' + ${value}; }\nreturn o + '}';`)}(${v})`;
    }
    case 'oneOf': {
      const branches = (node.oneOf as Node[]).map(
        (b, i) => `case ${i}: return ${serializerOf(b, branch(b, unit), unit)};`,
      );
      return `${fn(unit, `switch (${chooser(node, unit)}) {\n${branches.join('\n')}\n}\nthrow new Error('no branch');`)}(${v})`;
    }
    case 'object': {
      const required = new Set(node.required as string[]);
      const lines = Object.entries(node.properties as Record<string, Node>).map(([name, child], i) => {
        const key = JSON.stringify(name);
        const value = serializerOf(child, 'x', unit);
        if (required.has(name))
          return `{ const x = ${access(child, name, 'v', unit)}; o += ${JSON.stringify(`${i > 0 ? ',' : ''}${key}:`)} + ${value}; }`;
        return `{ const x = ${access(child, name, 'v', unit)}; if (x !== undefined) o += (o.length > 1 ? ',' : '') + ${JSON.stringify(`${key}:`)} + ${value}; }`;
      });
      // Only properties that are always sent may put their comma unconditionally: one optional one before them would not.
      const names = Object.keys(node.properties as object);
      const firstOptional = names.findIndex((n) => !required.has(n));
      if (firstOptional !== -1 && names.slice(firstOptional).some((n) => required.has(n)))
        throw new Error('output schema: optional properties must come after the required ones');
      return `${fn(unit, `if (v == null) return 'null';\nlet o = '{';\n${lines.join('\n')}\nreturn o + '}';`)}(${v})`;
    }
  }
};

const shaperOf: Generator = (node, v, unit) => {
  switch (kind(node)) {
    case 'const':
      return JSON.stringify(node.const);
    case 'number':
    case 'boolean':
      return v;
    case 'string': {
      const x = nullable(node) ? `(${v} ?? null)` : v;
      return node.format === 'date-time' ? `iso(${x})` : x;
    }
    case 'array': {
      const item = shaperOf(node.items as Node, 'x', unit);
      return `${fn(unit, `if (v == null) return null;\nconst o = new Array(v.length);\nfor (let i = 0; i < v.length; i++) { const x = v[i]; o[i] = ${item}; }\nreturn o;`)}(${v})`;
    }
    case 'record': {
      const value = shaperOf(node.additionalProperties as Node, 'x', unit);
      return `${fn(unit, `if (v == null) return null;\nconst o = {};\nfor (const k of Object.keys(v)) { const x = v[k]; if (x !== undefined) o[k] = ${value}; }\nreturn o;`)}(${v})`;
    }
    case 'oneOf': {
      const branches = (node.oneOf as Node[]).map((b, i) => `case ${i}: return ${shaperOf(b, branch(b, unit), unit)};`);
      return `${fn(unit, `switch (${chooser(node, unit)}) {\n${branches.join('\n')}\n}\nthrow new Error('no branch');`)}(${v})`;
    }
    case 'object': {
      const required = new Set(node.required as string[]);
      const entries = Object.entries(node.properties as Record<string, Node>);
      const always = entries.filter(([name]) => required.has(name));
      const optional = entries.filter(([name]) => !required.has(name));
      const literal = always
        .map(([name, child]) => {
          const read = access(child, name, 'v', unit);
          return `${JSON.stringify(name)}: ${shaperOf(child, `(${read})`, unit)}`;
        })
        .join(', ');
      const extra = optional.map(([name, child]) => {
        const read = access(child, name, 'v', unit);
        return `{ const x = ${read}; if (x !== undefined) o[${JSON.stringify(name)}] = ${shaperOf(child, 'x', unit)}; }`;
      });
      return `${fn(unit, `if (v == null) return null;\nconst o = { ${literal} };\n${extra.join('\n')}\nreturn o;`)}(${v})`;
    }
  }
};

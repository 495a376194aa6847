import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, OPENAPI_FILE, clientTypesText, openApiText } from '../../scripts/openapi-files.ts';
import { IDEMPOTENCY_TTL_MS } from '../../src/domain/memory/idempotency.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));

/** Every schema object of the document with where it is (examples are values, not schemas). */
function schemaObjects(node: unknown, at = '#', out: Array<[string, Record<string, unknown>]> = []) {
  if (typeof node !== 'object' || node === null) return out;
  if (!Array.isArray(node) && 'properties' in node && !('$ref' in node))
    out.push([at, node as Record<string, unknown>]);
  for (const [k, v] of Object.entries(node))
    if (k !== 'example' && k !== 'examples') schemaObjects(v, `${at}/${k}`, out);
  return out;
}

describe('openapi.json', () => {
  it('is the document the server builds (run `npm run openapi:print` after changing it)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiText());
  });

  it("and the typed client's types are generated from it with openapi-typescript", async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypesText());
  });

  it("passes Redocly's recommended lint with no error and no warning (redocly.yaml, .redocly.lint-ignore.yaml)", async () => {
    const { stdout } = await promisify(execFile)(
      path.join(ROOT, 'node_modules/.bin/redocly'),
      ['lint', 'openapi.json', '--format=json'],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ message: string; location: unknown }>;
    };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('lists the required properties of every object; a request field with a default is never required', () => {
    const objects = schemaObjects(doc);
    expect(objects.length).toBeGreaterThan(50);
    expect(objects.filter(([, s]) => !Array.isArray(s.required)).map(([at]) => at)).toEqual([]);
    const requiredWithDefault = objects.flatMap(([at, s]) =>
      (s.required as string[])
        .filter((name) => (s.properties as Record<string, { default?: unknown }>)[name]?.default !== undefined)
        .map((name) => `${at}.${name}`),
    );
    expect(requiredWithDefault).toEqual([]);
  });

  it('states the Idempotency-Key retention the sweep keeps', () => {
    const hours = IDEMPOTENCY_TTL_MS / 3_600_000;
    const text = doc.components.parameters.IdempotencyKey.description as string;
    expect(text).toContain(`at least ${hours} hours`);
    expect([...text.matchAll(/(\d+) hours/g)].map((m) => Number(m[1]))).toEqual([hours, hours]);
  });

  it('documents every operation with a tag, an id, a summary and an example of its success', () => {
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
      Object.entries(item)
        .filter(([m]) => m !== 'parameters')
        .map(([m, op]) => [`${m.toUpperCase()} ${p}`, op] as const),
    );
    // GET /risk_api/openapi.json answers this document: its own example would be a copy of itself.
    const incomplete = operations.filter(
      ([name, op]) =>
        !(op.tags?.length && op.operationId && op.summary) ||
        (name !== 'GET /risk_api/openapi.json' &&
          !Object.entries(op.responses as Record<string, any>).some(
            ([status, r]) =>
              status.startsWith('2') && Object.values(r.content ?? {}).some((m: any) => m.example !== undefined),
          )),
    );
    expect(incomplete.map(([name]) => name)).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isObjectType, printSchema, type GraphQLSchema } from 'graphql';
import { schema } from '../../src/transport/graphql/schema.ts';
import { workspaceSchema } from '../../src/transport/web/graphql/schema.ts';

const SCHEMAS: Array<[file: string, served: string, s: GraphQLSchema]> = [
  ['schema.graphql', '/graphql (API keys)', schema],
  ['schema.workspace.graphql', '/workspace/graphql (sessions)', workspaceSchema],
];

describe.each(SCHEMAS)('%s — %s', (file, _served, s) => {
  it('matches the Pothos schema (run `npm run schema:print` after changing a type)', () => {
    const committed = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    expect(committed).toBe(printSchema(s) + '\n');
  });

  it('documents every type and field', () => {
    const undocumented: string[] = [];
    for (const type of Object.values(s.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Boolean', 'Float', 'ID'].includes(type.name)) continue;
      if (!type.description) undocumented.push(type.name);
      if ('getFields' in type) {
        for (const field of Object.values(type.getFields())) if (!field.description) undocumented.push(`${type.name}.${field.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });
});

describe('the two schemas are separate', () => {
  const rootFields = (s: GraphQLSchema) => [s.getQueryType(), s.getMutationType()]
    .flatMap((t) => (t && isObjectType(t) ? Object.keys(t.getFields()).map((f) => `${t.name}.${f}`) : []));

  it('no root field of one is served by the other', () => {
    const api = new Set(rootFields(schema));
    const shared = rootFields(workspaceSchema).filter((f) => api.has(f));
    expect(shared).toEqual([]);
    expect(rootFields(workspaceSchema)).toEqual(expect.arrayContaining(['Mutation.createApiKey', 'Mutation.revokeApiKey', 'Query.me', 'Query.csrfToken']));
    expect(rootFields(schema)).toEqual(expect.arrayContaining(['Query.score', 'Mutation.rate']));
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printSchema } from 'graphql';
import { schema } from '../../src/graphql/schema.ts';

describe('schema.graphql', () => {
  it('matches the Pothos schema (run `npm run schema:print` after changing a type)', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printSchema(schema) + '\n');
  });

  it('documents every type and field', () => {
    const undocumented: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Boolean', 'Float', 'ID'].includes(type.name)) continue;
      if (!type.description) undocumented.push(type.name);
      if ('getFields' in type) {
        for (const field of Object.values(type.getFields())) if (!field.description) undocumented.push(`${type.name}.${field.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });
});
